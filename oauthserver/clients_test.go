package oauthserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestMetadataDocuments fetches Client ID Metadata Documents from a TLS
// server: a good one is kept as its caching says; each bad one is refused
// with one line naming the rule, and nothing is kept.
func TestMetadataDocuments(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	var hits atomic.Int32
	var srv *httptest.Server
	doc := func(id string, redirect string) string {
		return fmt.Sprintf(`{"client_id":%q,"client_name":"Good Assistant","redirect_uris":[%q],"logo_uri":"https://logo.example/a.png"}`, id, redirect)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/good", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Cache-Control", "public, max-age=120")
		fmt.Fprint(w, doc(srv.URL+"/good", "https://good.example/cb"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"client_id":"`+srv.URL+`/big","pad":"`+strings.Repeat("x", 20<<10)+`"}`)
	})
	// /slow answers only after the test: the client must give up on its own
	// timeout, whatever the server notices of the closed connection.
	release := make(chan struct{})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(time.Minute):
		}
	})
	mux.HandleFunc("/notjson", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>hello</html>") })
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, doc("https://elsewhere.example/c", "https://x.example/cb"))
	})
	mux.HandleFunc("/plainhttp", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, doc(srv.URL+"/plainhttp", "http://evil.example/cb"))
	})
	mux.HandleFunc("/secret", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"client_id":"`+srv.URL+`/secret","redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data", http.StatusFound)
	})
	mux.HandleFunc("/lookalike", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"\u0421laude","redirect_uris":["https://a.example/cb"]}`, srv.URL+"/lookalike")
	})
	mux.HandleFunc("/nohost", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, doc(srv.URL+"/nohost", "https:evil.example"))
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/public", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Public Assistant","redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"none"}`, srv.URL+"/public")
	})
	for path, member := range map[string]string{"/httplogo": `"logo_uri":"http://logo.example/a.png"`,
		"/httpsite": `"client_uri":"http://site.example/"`, "/implicit": `"response_types":["token"]`,
		"/machine": `"grant_types":["client_credentials"]`} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"client_id":%q,"redirect_uris":["https://a.example/cb"],%s}`, srv.URL+path, member)
		})
	}
	mux.HandleFunc("/created", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, doc(srv.URL+"/created", "https://a.example/cb"))
	})
	// /exact is a good document of exactly 16 KiB, the most kept.
	mux.HandleFunc("/exact", func(w http.ResponseWriter, r *http.Request) {
		d := strings.TrimSuffix(doc(srv.URL+"/exact", "https://a.example/cb"), "}") + `,"pad":""}`
		fmt.Fprint(w, strings.Replace(d, `"pad":""`, `"pad":"`+strings.Repeat("x", 16<<10-len(d))+`"`, 1))
	})
	srv = httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs before srv.Close, which waits for handlers

	state := app.NewOAuth(pool)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: state, Accounts: app.NewAccounts(pool),
		MetadataTransport: srv.Client().Transport})
	if err != nil {
		t.Fatal(err)
	}
	s.clients.http.Timeout = 300 * time.Millisecond
	ctx := context.Background()

	c, err := s.clients.get(ctx, srv.URL+"/good", allowAll)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "Good Assistant" || c.RedirectURIs[0] != "https://good.example/cb" || c.FreshUntil == nil ||
		time.Until(*c.FreshUntil) < 100*time.Second || time.Until(*c.FreshUntil) > 130*time.Second {
		t.Errorf("good client: %+v", c)
	}
	if _, err := s.clients.get(ctx, srv.URL+"/good", allowAll); err != nil || hits.Load() != 1 {
		t.Errorf("a fresh document was fetched again (%d fetches): %v", hits.Load(), err)
	}
	// Past its max-age, the document is fetched again.
	s.clients.now = func() time.Time { return time.Now().Add(3 * time.Minute) }
	if c, err := s.clients.get(ctx, srv.URL+"/good", allowAll); err != nil || hits.Load() != 2 || c.Name != "Good Assistant" {
		t.Errorf("a stale document: %+v, %v (%d fetches), want it fetched again", c, err, hits.Load())
	}
	s.clients.now = time.Now
	if c, err := s.clients.get(ctx, srv.URL+"/exact", allowAll); err != nil || c.Name != "Good Assistant" {
		t.Errorf("a document of exactly 16 KiB: %+v, %v, want it kept", c, err)
	}
	if c, err := s.clients.get(ctx, srv.URL+"/public", allowAll); err != nil || c.Name != "Public Assistant" {
		t.Errorf("a document asking for token_endpoint_auth_method none: %+v, %v, want it kept (a public client)", c, err)
	}

	for path, want := range map[string]string{
		"/big":           "larger than 16 KiB",
		"/slow":          "did not answer",
		"/notjson":       "not a JSON object",
		"/other":         "names another client_id",
		"/plainhttp":     "http is allowed only to localhost",
		"/secret":        "public clients only",
		"/moved":         "not https",
		"/gone":          "HTTP 404",
		"/created":       "HTTP 201, not 200",
		"/httplogo":      "a logo_uri or client_uri that is not https",
		"/httpsite":      "a logo_uri or client_uri that is not https",
		"/implicit":      `asks for response type "token"`,
		"/machine":       `asks for grant type "client_credentials"`,
		"/lookalike":     "has a client_name that mixes scripts",
		"/nohost":        "names no host",
		"/x/../good":     "a . or .. segment",
		"/x/%2E%2E/good": "a . or .. segment",
		// Client ID Metadata Document: no single-dot or double-dot
		// segment, however its dots are escaped.
		"/x/./good":    "a . or .. segment",
		"/x/%2e/good":  "a . or .. segment",
		"/x/.%2E/good": "a . or .. segment",
		"/x/%2E./good": "a . or .. segment",
	} {
		_, err := s.clients.get(ctx, srv.URL+path, allowAll)
		if app.ErrorCodeOf(err) != app.ErrInvalid || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "client_id: ") {
			t.Errorf("%s: %v, want ErrInvalid with %q", path, err, want)
		}
		if _, err := state.Client(ctx, srv.URL+path); app.ErrorCodeOf(err) != app.ErrNotFound {
			t.Errorf("%s was kept: %v", path, err)
		}
	}
	// Client ID Metadata Document: the URL has a path, and no fragment,
	// user name or password; such a client_id is refused as it is, never
	// fetched (a fragment is not sent, a user name is not shown).
	fetched := hits.Load()
	for _, id := range []string{srv.URL + "/", srv.URL + "/good#top", strings.Replace(srv.URL, "https://", "https://someone@", 1) + "/good",
		strings.Replace(srv.URL, "https://", "https://someone:pw@", 1) + "/good"} {
		_, err := s.clients.get(ctx, id, allowAll)
		if app.ErrorCodeOf(err) != app.ErrInvalid || !strings.Contains(err.Error(), "is not an https URL with a path") {
			t.Errorf("%s: %v, want ErrInvalid saying it is not an https URL with a path", id, err)
		}
		if _, err := state.Client(ctx, id); app.ErrorCodeOf(err) != app.ErrNotFound {
			t.Errorf("%s was kept: %v", id, err)
		}
	}
	if n := hits.Load(); n != fetched {
		t.Errorf("client_ids that are no metadata document URL were fetched: %d fetches, want %d", n, fetched)
	}
	if _, err := s.clients.get(ctx, "tsc_unknown", allowAll); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Errorf("unknown registered client: %v", err)
	}
}

func TestFreshFor(t *testing.T) {
	for cc, want := range map[string]time.Duration{"max-age=600": 10 * time.Minute, "no-store": 0, "no-cache, max-age=60": 0,
		"max-age=5": time.Minute, "max-age=999999": 24 * time.Hour, "": time.Hour,
		// RFC 9111 §5.2.2: no-store and no-cache hold wherever they stand.
		"max-age=600, no-store": 0, "public, max-age=600, no-cache": 0, "Max-Age=600,No-Store": 0} {
		h := http.Header{}
		if cc != "" {
			h.Set("Cache-Control", cc)
		}
		if got := freshFor(h); got != want {
			t.Errorf("Cache-Control %q: %s, want %s", cc, got, want)
		}
	}
	// The same directives on two header lines are one field (RFC 9110 §5.3).
	h := http.Header{"Cache-Control": {"max-age=600", "no-store"}}
	if got := freshFor(h); got != 0 {
		t.Errorf("Cache-Control on two lines, max-age=600 then no-store: %s, want 0", got)
	}
}

// TestTokenEndpointsFetchNoDocument: the token and revocation endpoints
// take no sign-in, and a client_id there that was an https URL nobody
// authorized made Taasky fetch it (on the running binary, four connections
// a request, each up to 5 s): anyone could have Taasky fetch any URL as
// often as they liked. They check the client as stored: an unknown one is
// refused without a fetch, and a known one whose document went stale is
// not fetched again (its grant was made under the document as stored).
func TestTokenEndpointsFetchNoDocument(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	var hits atomic.Int32
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Cache-Control", "public, max-age=120")
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Assistant","redirect_uris":["https://a.example/cb"]}`, srv.URL+r.URL.Path)
	})
	srv = httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(pool), Accounts: app.NewAccounts(pool),
		MetadataTransport: srv.Client().Transport})
	if err != nil {
		t.Fatal(err)
	}
	web := fiber.New()
	s.Mount(web)
	post := func(path string, form url.Values) (int, string) {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := web.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		e, _ := m["error"].(string)
		return resp.StatusCode, e
	}
	exchange := func(id string) url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "code": {"ory_ac_x.y"}, "client_id": {id},
			"redirect_uri": {"https://a.example/cb"}, "code_verifier": {strings.Repeat("v", 43)}}
	}
	unknown := srv.URL + "/never-authorized"
	if st, e := post("/oauth/token", exchange(unknown)); st != http.StatusUnauthorized || e != "invalid_client" {
		t.Errorf("an exchange for an unknown client: %d %s, want 401 invalid_client", st, e)
	}
	if st, e := post("/oauth/revoke", url.Values{"token": {"x"}, "client_id": {unknown}}); st != http.StatusUnauthorized || e != "invalid_client" {
		t.Errorf("a revocation for an unknown client: %d %s, want 401 invalid_client", st, e)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the token endpoints fetched an unknown client's document %d times", n)
	}
	// An authorization fetched a client's document; it went stale since.
	known := srv.URL + "/assistant"
	if _, err := s.clients.get(context.Background(), known, allowAll); err != nil || hits.Load() != 1 {
		t.Fatalf("the authorization's fetch: %v (%d fetches)", err, hits.Load())
	}
	s.clients.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if st, e := post("/oauth/token", exchange(known)); st != http.StatusBadRequest || e != "invalid_grant" {
		t.Errorf("an exchange of a made-up code for a known client: %d %s, want 400 invalid_grant", st, e)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the token endpoint fetched a known client's document again: %d fetches", n)
	}
}

// allowAll lets clients.get fetch every document.
func allowAll() error { return nil }

// TestMetadataDocumentRedirects: a document is fetched through at most 3
// redirects (each to https); a fourth is refused, naming the rule, and
// nothing is kept.
func TestMetadataDocumentRedirects(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	var srv *httptest.Server
	mux := http.NewServeMux()
	// /hops/{n}/{left} redirects left more times, then serves the document
	// of /hops/{n}/{n}, the URL first fetched.
	mux.HandleFunc("/hops/{n}/{left}", func(w http.ResponseWriter, r *http.Request) {
		n, left := r.PathValue("n"), r.PathValue("left")
		if left != "0" {
			next := int(left[0]-'0') - 1
			http.Redirect(w, r, fmt.Sprintf("%s/hops/%s/%d", srv.URL, n, next), http.StatusFound)
			return
		}
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Moved Assistant","redirect_uris":["https://a.example/cb"]}`, srv.URL+"/hops/"+n+"/"+n)
	})
	srv = httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	state := app.NewOAuth(pool)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: state, Accounts: app.NewAccounts(pool),
		MetadataTransport: srv.Client().Transport})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if c, err := s.clients.get(ctx, srv.URL+"/hops/3/3", allowAll); err != nil || c.Name != "Moved Assistant" {
		t.Errorf("a document 3 redirects away: %+v, %v", c, err)
	}
	id := srv.URL + "/hops/4/4"
	if _, err := s.clients.get(ctx, id, allowAll); app.ErrorCodeOf(err) != app.ErrInvalid || !strings.Contains(err.Error(), "more than 3 redirects") {
		t.Errorf("a document 4 redirects away: %v, want ErrInvalid naming the 3 redirects", err)
	}
	if _, err := state.Client(ctx, id); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Errorf("a document 4 redirects away was kept: %v", err)
	}
}

// TestFreshForInvalidFreshness: RFC 9111 reads freshness strictly, and
// what it cannot read as fresh is stale, never the hour Taasky gives a
// document that says nothing. max-age's argument may be quoted (§5.2:
// recipients accept both forms); one that is no delta-seconds (a word, a
// sign, spaces around "=", which the grammar has not) makes the document
// stale (§4.2.1), as does an Expires that is no date, "0" above all
// (§5.3), and the Expires is ignored then; the first max-age counts
// (§4.2.1); one past what Taasky can count is the longest (§1.2.2).
// Stale is the least Taasky keeps a document: a minute.
func TestFreshForInvalidFreshness(t *testing.T) {
	later := time.Now().Add(48 * time.Hour).UTC().Format(http.TimeFormat)
	for _, c := range []struct {
		cc, expires string
		want        time.Duration
	}{
		{`max-age="600"`, "", 10 * time.Minute},
		{`public, max-age="600"`, later, 10 * time.Minute},
		{"max-age=ten", "", time.Minute},
		{"max-age=ten", later, time.Minute},
		{"max-age = 600", "", time.Minute},
		{"max-age=-600", "", time.Minute},
		{"max-age=+600", "", time.Minute},
		{"max-age=", "", time.Minute},
		{"max-age", "", time.Minute},
		{"max-age=60, max-age=86400", "", time.Minute},
		{"max-age=ten, max-age=86400", "", time.Minute},
		{"max-age=99999999999999999999", "", 24 * time.Hour},
		{"max-age=9300000000", "", 24 * time.Hour},
		{"", "0", time.Minute},
		{"", "tomorrow", time.Minute},
		{"public", "0", time.Minute},
		{"", later, 24 * time.Hour},
		{"must-revalidate, max-age=600", "", 10 * time.Minute},
		{"no-cache", later, 0},
	} {
		h := http.Header{}
		if c.cc != "" {
			h.Set("Cache-Control", c.cc)
		}
		if c.expires != "" {
			h.Set("Expires", c.expires)
		}
		if got := freshFor(h); got != c.want {
			t.Errorf("Cache-Control %q, Expires %q: %s, want %s", c.cc, c.expires, got, c.want)
		}
	}
}

// TestFreshForExpiresLessDate: an Expires is a moment on the server's
// clock: the document is fresh for Expires less the response's Date
// (RFC 9111 §4.2.1), not until Expires on Taasky's clock. A server a day
// ahead that said "ten minutes" was kept a day; one a day behind, a
// minute. Without a Date (or with one that is no date), the moment
// received stands for it.
func TestFreshForExpiresLessDate(t *testing.T) {
	now := time.Now()
	for _, skew := range []time.Duration{24 * time.Hour, -24 * time.Hour, 0} {
		h := http.Header{}
		h.Set("Date", now.Add(skew).UTC().Format(http.TimeFormat))
		h.Set("Expires", now.Add(skew+10*time.Minute).UTC().Format(http.TimeFormat))
		if got := freshFor(h); got != 10*time.Minute {
			t.Errorf("a server %s ahead, Expires its Date + 10 min: %s, want 10m0s", skew, got)
		}
	}
	h := http.Header{}
	h.Set("Date", "yesterday")
	h.Set("Expires", now.Add(2*time.Hour).UTC().Format(http.TimeFormat))
	if got := freshFor(h); got < time.Hour+59*time.Minute || got > 2*time.Hour {
		t.Errorf("a Date that is no date, Expires in 2 h: %s, want about 2 h", got)
	}
}

// TestMetadataClientTransport is Taasky's own transport for metadata
// documents (the other tests give theirs): a server sending more than
// 16 KiB of headers is refused as it sends them, naming the limit, and a
// loopback address is refused at the dial unless private fetches are
// allowed (dev and tests).
func TestMetadataClientTransport(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/good", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Good Assistant","redirect_uris":["https://good.example/cb"]}`, srv.URL+"/good")
	})
	// A good document behind 20 KiB of headers.
	mux.HandleFunc("/headers", func(w http.ResponseWriter, r *http.Request) {
		for i := range 20 {
			w.Header().Set(fmt.Sprintf("X-Pad-%d", i), strings.Repeat("x", 1<<10))
		}
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Good Assistant","redirect_uris":["https://good.example/cb"]}`, srv.URL+"/headers")
	})
	srv = httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(pool), Accounts: app.NewAccounts(pool)})
	if err != nil {
		t.Fatal(err)
	}
	// Taasky's transport, trusting the test server's certificate.
	trust := func(c *http.Client) *http.Client {
		c.Transport.(*http.Transport).TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		return c
	}
	ctx := context.Background()

	s.clients.http = trust(newMetadataClient(true, nil))
	if c, err := s.clients.get(ctx, srv.URL+"/good", allowAll); err != nil || c.Name != "Good Assistant" {
		t.Errorf("a good document, private fetches allowed: %+v, %v", c, err)
	}
	if _, err := s.clients.get(ctx, srv.URL+"/headers", allowAll); app.ErrorCodeOf(err) != app.ErrInvalid || !strings.Contains(err.Error(), "headers exceeded 16384 bytes") {
		t.Errorf("a document behind 20 KiB of headers: %v, want it refused naming 16384 bytes", err)
	}
}
