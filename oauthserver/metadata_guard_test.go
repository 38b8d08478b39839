package oauthserver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taasky/taasky/internal/netguard"
)

// TestMetadataClientGuardsTheAddressDialled: the client that fetches
// Client ID Metadata Documents, as the server builds it outside dev and
// tests (no transport given, private fetches not allowed), never connects
// to a loopback address, named by a literal or by localhost: the document's
// server sees no request and the error wraps netguard.ErrRefused. Allowed
// (dev), the same fetch reaches it.
func TestMetadataClientGuardsTheAddressDialled(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	get := func(c *http.Client, u string) error {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	guarded := newMetadataClient(false, nil)
	for _, u := range []string{srv.URL + "/client.json", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/client.json"} {
		if err := get(guarded, u); !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("%s: %v, want refused (netguard.ErrRefused)", u, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the guarded client reached a loopback server %d times", n)
	}
	if err := get(newMetadataClient(true, nil), srv.URL+"/client.json"); err != nil || hits.Load() != 1 {
		t.Errorf("private fetches allowed: %v, %d requests", err, hits.Load())
	}
}
