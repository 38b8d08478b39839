package oauthserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestTokensAtTheDoor: a client of a Client ID Metadata Document (whose
// document says no-store) connects, then calls with its access token:
// checking the token never fetches the document again, and the document's
// host being down ends nothing; its refresh token is no bearer.
func TestTokensAtTheDoor(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	ctx := context.Background()
	accounts := app.NewAccounts(pool)
	if _, err := accounts.CreateAccount(ctx, "acme", "Acme", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	alice, err := accounts.UserByEmail(ctx, "alice@example.test")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	var down atomic.Bool
	var srv *httptest.Server
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"A","redirect_uris":["https://a.example/cb"]}`, srv.URL+"/client.json")
	}))
	t.Cleanup(srv.Close)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(pool), Accounts: accounts,
		MetadataTransport: srv.Client().Transport})
	if err != nil {
		t.Fatal(err)
	}
	id, resource := srv.URL+"/client.json", "http://taasky.test/mcp/acme"
	verifier := strings.Repeat("v", 50)
	sum := sha256.Sum256([]byte(verifier))
	loc, err := s.Approve(ctx, url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"https://a.example/cb"},
		"state": {"state-12345"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"resource": {resource}}, alice.ID, "acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(loc)
	if err != nil || u.Query().Get("code") == "" {
		t.Fatalf("approve answered %q", loc)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")}, "redirect_uri": {"https://a.example/cb"},
		"code_verifier": {verifier}, "client_id": {id}}
	req := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	s.token(rec, req)
	var tok struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &tok); err != nil || tok.AccessToken == "" || tok.RefreshToken == "" {
		t.Fatalf("token: %d %s", rec.Code, rec.Body)
	}

	before := hits.Load()
	for range 5 {
		if _, err := s.AuthenticateAccessToken(ctx, tok.AccessToken, resource); err != nil {
			t.Fatal(err)
		}
	}
	if n := hits.Load() - before; n != 0 {
		t.Errorf("5 calls with the access token fetched the client's document %d times", n)
	}
	down.Store(true)
	if ag, err := s.AuthenticateAccessToken(ctx, tok.AccessToken, resource); err != nil || ag.AccountSlug != "acme" {
		t.Errorf("with the document's host down, the access token: %+v %v", ag, err)
	}

	_, err = s.AuthenticateAccessToken(ctx, tok.RefreshToken, resource)
	if app.ErrorCodeOf(err) != app.ErrUnauthorized || !strings.Contains(app.ErrorMessageOf(err), "refresh token") {
		t.Errorf("the refresh token as a bearer: %v", err)
	}
}
