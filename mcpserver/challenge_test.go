package mcpserver

import (
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/oauthserver"
)

// TestChallengeOfAnyPath: the 401's WWW-Authenticate names the resource
// metadata of the path's account segment as a quoted-string (RFC 9110
// §11.2) holding a URI (RFC 3986). fasthttp takes a request line with a
// raw '"', '\', space-like or non-ASCII byte in its path, and Fiber's
// parameter is that segment as sent: written as it was, `/mcp/a",x="y`
// ended the quoted-string and added a parameter of the sender's to
// Taasky's challenge. Each such byte is percent-encoded; what a URI holds
// already (a %22 as sent, a slug) is left as it is.
func TestChallengeOfAnyPath(t *testing.T) {
	s, err := oauthserver.New(oauthserver.Config{BaseURL: "https://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(nil), Accounts: app.NewAccounts(nil)})
	if err != nil {
		t.Fatal(err)
	}
	door := struct {
		*app.Accounts
		*oauthserver.Server
	}{app.NewAccounts(nil), s} // as cmd/taasky's mcpAuth
	const prefix = `Bearer realm="taasky", resource_metadata="https://taasky.test/.well-known/oauth-protected-resource/mcp`
	for account, want := range map[string]string{
		"acme":          "/acme",
		"":              "",
		"a%22b":         "/a%22b",
		`a",x="y`:       "/a%22,x=%22y",
		`a\b`:           "/a%5Cb",
		"\xc3\xa9":      "/%C3%A9",
		"a\x7fb<c>{d}^": "/a%7Fb%3Cc%3E%7Bd%7D%5E",
	} {
		if got := challenge(door, account); got != prefix+want+`", scope="negotiate"` {
			t.Errorf("the challenge at /mcp/%s: %s, want %s", account, got, prefix+want+`", scope="negotiate"`)
		}
	}
}
