package dashboard

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/ratelimit"
	"github.com/taasky/taasky/oauthserver"
)

// TestConsentMetadataFetchesLimited: a signed-in person opening
// /oauth/authorize with ever new Client ID Metadata Document URLs made
// Taasky fetch each, without limit. Past the person's limit the consent
// screen answers 429 with Retry-After and says when to try again in their
// language, and fetches nothing; a document Taasky keeps fresh costs
// nothing, and another person has a limit of their own.
func TestConsentMetadataFetchesLimited(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var hits atomic.Int32
	var docs *httptest.Server
	docs = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Assistant","redirect_uris":["https://assistant.example/cb"]}`, docs.URL+r.URL.Path)
	}))
	t.Cleanup(docs.Close)
	state := app.NewOAuth(b.pool)
	const burst = 3
	srv, err := oauthserver.New(oauthserver.Config{BaseURL: b.base, Secret: make([]byte, 32), State: state, Accounts: b.accounts,
		MetadataTransport: docs.Client().Transport, FetchLimit: ratelimit.Limit{Rate: 1.0 / 3600, Burst: burst}})
	if err != nil {
		t.Fatal(err)
	}
	b.dash.oauth = struct {
		*oauthserver.Server
		*app.OAuth
	}{srv, state}
	sum := sha256.Sum256([]byte("a verifier of the test, long enough to be one: 43+ characters"))
	authorize := func(u *app.User, lang, doc string) (int, string, string) {
		t.Helper()
		q := url.Values{"response_type": {"code"}, "client_id": {docs.URL + doc}, "redirect_uri": {"https://assistant.example/cb"},
			"state": {"state-12345"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
			"resource": {b.base + "/mcp/alpha"}}
		cl := b.client(u)
		cl.lang = lang
		st, _, body := cl.get("/oauth/authorize?" + q.Encode())
		return st, cl.header.Get("Retry-After"), body
	}
	for i := range burst {
		if st, _, body := authorize(&b.alice, "en", "/client/"+strconv.Itoa(i)); st != http.StatusOK {
			t.Fatalf("document %d: %d\n%s", i, st, body)
		}
	}
	for _, tc := range []struct{ lang, says string }{
		{"en", "Taasky fetched too many assistants' client metadata documents for you in a short time. Try again in"},
		{"de", "Taasky hat für Sie in kurzer Zeit zu viele Client-Metadaten-Dokumente von Assistenten abgerufen."},
	} {
		st, retry, body := authorize(&b.alice, tc.lang, "/client/more-"+tc.lang)
		if secs, err := strconv.Atoi(retry); st != http.StatusTooManyRequests || err != nil || secs < 1 {
			t.Fatalf("%s: past the limit: %d, Retry-After %q; want 429 with seconds\n%s", tc.lang, st, retry, body)
		}
		if !strings.Contains(strings.ReplaceAll(body, "&#39;", "'"), tc.says) {
			t.Errorf("%s: the page does not say %q\n%s", tc.lang, tc.says, body)
		}
	}
	if n := hits.Load(); n != burst {
		t.Errorf("documents fetched: %d, want %d (none past the limit)", n, burst)
	}
	if st, _, body := authorize(&b.alice, "en", "/client/0"); st != http.StatusOK {
		t.Errorf("a document kept fresh, past the limit: %d, want 200 (no fetch)\n%s", st, body)
	}
	if st, _, body := authorize(&b.bob, "en", "/client/bob"); st != http.StatusOK {
		t.Errorf("another person: %d, want 200 (a limit of their own)\n%s", st, body)
	}
}
