package devoidc

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestAbandonedSignInsAreForgotten: a sign-in whose code the relying party
// never exchanges (the browser left at the redirect, or Taasky's callback
// refusing it first, e.g. its login cookie expired) is forgotten with its
// code once it is older than the requests kept. Its code was kept for ever:
// a long-running taasky dev grew a map entry per such sign-in.
func TestAbandonedSignInsAreForgotten(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	issuer := srv.URL + "/dev-oidc"
	redirect := srv.URL + "/cb"
	h, st, err := newProvider(Config{Issuer: issuer,
		Clients: []Client{{ID: "rp", Secret: "s3cret", RedirectURIs: []string{redirect}}},
		Emails:  func(context.Context) ([]string, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/dev-oidc/", h)
	codes := 0
	mux.HandleFunc("/cb", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("code") != "" {
			codes++ // and never exchanged
		}
	})
	conf := &oauth2.Config{ClientID: "rp", ClientSecret: "s3cret", RedirectURL: redirect, Scopes: []string{"openid", "email"},
		Endpoint: oauth2.Endpoint{AuthURL: issuer + "/authorize", TokenURL: issuer + "/oauth/token"}}
	idOf := regexp.MustCompile(`name="id" value="([^"]+)"`)
	signIn := func(email string) {
		t.Helper()
		resp, err := http.Get(conf.AuthCodeURL("st", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		id := idOf.FindSubmatch(page)
		if id == nil {
			t.Fatalf("no auth request id in %s", page)
		}
		if email == "" {
			return // the login page left
		}
		resp, err = http.PostForm(resp.Request.URL.String(), url.Values{"id": {string(id[1])}, "email": {email}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for range 5 {
		signIn("alice@example.test")
	}
	signIn("")
	if codes != 5 {
		t.Fatalf("%d codes reached the relying party, want 5", codes)
	}
	st.mu.Lock()
	for _, r := range st.requests {
		r.created = r.created.Add(-31 * time.Minute)
	}
	st.mu.Unlock()
	signIn("") // a new sign-in forgets those abandoned long ago

	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.requests) != 1 || len(st.codes) != 0 {
		t.Fatalf("after the abandoned sign-ins were forgotten: %d requests (want 1), %d codes (want 0)", len(st.requests), len(st.codes))
	}
}
