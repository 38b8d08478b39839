package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// oauthOffered stands for the authorization server where a page only asks
// whether OAuth is offered: nothing connects through it.
type oauthOffered struct{}

var errNoConsent = app.Errorf(app.ErrNotFound, "no consent in this test")

func (oauthOffered) ReadAuthorization(context.Context, url.Values, int64) (app.OAuthAuthorization, string, error) {
	return app.OAuthAuthorization{}, "", errNoConsent
}
func (oauthOffered) Approve(context.Context, url.Values, int64, string) (string, error) {
	return "", errNoConsent
}
func (oauthOffered) Decline(context.Context, url.Values, int64) (string, error) {
	return "", errNoConsent
}
func (oauthOffered) Connections(context.Context, string) ([]app.OAuthConnection, error) {
	return nil, nil
}
func (oauthOffered) Disconnect(context.Context, string, int64) error { return errNoConsent }

// withOAuth offers MCP authorization, as cmd/taasky always does.
func withOAuth(c *Config) { c.OAuth = oauthOffered{} }

// TestStartConnectsAnAgent: the first steps give the account's MCP URL and,
// with MCP authorization offered, say that an assistant that supports it
// needs that URL alone (or {BASE_URL}/mcp, choosing the account when it
// approves), while the others need a key from Settings; in the reader's
// language. Without OAuth they say only that it needs a key.
func TestStartConnectsAnAgent(t *testing.T) {
	t.Parallel()
	b := setup(t, withOAuth)
	alice := b.client(&b.alice)
	st, _, body := alice.get("/accounts/alpha/start")
	for _, want := range []string{
		`<code id="start-mcp" data-mcp-url>` + b.base + `/mcp/alpha</code>`,
		"<p data-connect-oauth>Claude, ChatGPT, VS Code, Cursor and the other assistants that support MCP authorization need only this URL: " +
			"add it as a remote MCP server (leave any key empty), sign in to Taasky when your browser opens, and approve. " +
			"<code>" + b.base + "/mcp</code> works too: you then pick the account when you approve.</p>",
		`Other assistants need a key: <a href="/settings#acct-alpha">create an agent in Settings</a>, which shows its key once.`,
	} {
		if st != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("the first steps: %d, lack %q", st, want)
		}
	}
	alice.lang = "ja"
	st, _, body = alice.get("/accounts/alpha/start")
	for _, want := range []string{
		"Claude、ChatGPT、VS Code、CursorなどMCPの認可に対応したアシスタントは、このURLだけで接続できます。",
		"<code>" + b.base + "/mcp</code>でも接続できます。",
		"その他のアシスタントにはキーが必要です：",
	} {
		if st != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("the first steps in Japanese: %d, lack %q", st, want)
		}
	}

	keysOnly := setup(t)
	st, _, body = keysOnly.client(&keysOnly.alice).get("/accounts/alpha/start")
	if st != http.StatusOK || !strings.Contains(body, `It needs a key: <a href="/settings#acct-alpha">create an agent in Settings</a>`) ||
		strings.Contains(body, "data-connect-oauth") || strings.Contains(body, "Other assistants") {
		t.Errorf("the first steps without OAuth: %d\n%s", st, body)
	}
}
