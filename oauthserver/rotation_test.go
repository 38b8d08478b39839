package oauthserver

import (
	"bytes"
	"net/http"
	"net/url"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestTokensDuringASecretKeyRotation: the access and refresh tokens a
// server signed with the old secret are taken by a server started with
// the new one and the old one as PreviousSecret (a refresh then issues
// tokens of the new secret), and no longer once PreviousSecret is
// removed; the new secret's tokens are taken throughout.
func TestTokensDuringASecretKeyRotation(t *testing.T) {
	t.Parallel()
	oldSecret, newSecret := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	e := acmeWithClient(t, "rot-client")
	// acmeWithClient's server signs with 32 zero bytes: start again with
	// the old secret.
	var err error
	serverWith := func(secret, previous []byte) *Server {
		t.Helper()
		s, err := New(Config{BaseURL: "http://taasky.test", Secret: secret, PreviousSecret: previous, State: e.state, Accounts: e.accounts})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	e.s = serverWith(oldSecret, nil)
	access, refresh := exchangeCode(t, e, mounted(t, e.s), "rot-client")
	resource := "http://taasky.test/mcp/acme"

	rotating := serverWith(newSecret, oldSecret)
	if _, err = rotating.AuthenticateAccessToken(e.ctx, access, resource); err != nil {
		t.Fatalf("the old secret's access token during the rotation: %v", err)
	}
	post := mounted(t, rotating)
	status, tok := post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded",
		url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {"rot-client"}}.Encode())
	newAccess, _ := tok["access_token"].(string)
	if status != http.StatusOK || newAccess == "" {
		t.Fatalf("the old secret's refresh token during the rotation: %d %v", status, tok)
	}

	after := serverWith(newSecret, nil)
	if _, err = after.AuthenticateAccessToken(e.ctx, access, resource); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("the old secret's access token once it is removed: %v, want unauthorized", err)
	}
	if ag, err := after.AuthenticateAccessToken(e.ctx, newAccess, resource); err != nil || ag.AccountSlug != "acme" {
		t.Errorf("the token refreshed during the rotation, once the old secret is removed: %+v %v", ag, err)
	}
}
