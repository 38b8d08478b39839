package main

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestProbe: 200 is healthy; any other answer, no answer, or a bad URL is
// not (a bad URL is a usage error naming the rule).
func TestProbe(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			_, _ = io.WriteString(w, "ready\n")
			return
		}
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	probe := func(args ...string) error {
		return run(t.Context(), append([]string{"probe"}, args...), func(string) string { return "" }, io.Discard, io.Discard)
	}
	if err := probe("--url", srv.URL+"/readyz"); err != nil {
		t.Errorf("a 200: %v", err)
	}
	if err := probe("--url", srv.URL+"/other"); err == nil {
		t.Error("a 503 passed the probe")
	}
	if err := probe("--url", "http://127.0.0.1:9/readyz"); err == nil {
		t.Error("nothing listening passed the probe")
	}
	for _, args := range [][]string{{}, {"--url", "ftp://x/"}, {"--url", "http://x/", "extra"}} {
		err := probe(args...)
		if _, ok := errors.AsType[usageError](err); !ok {
			t.Errorf("probe %q: %v; want a usage error", args, err)
		}
	}
}
