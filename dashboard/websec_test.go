package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestCallbackChecksTheStateFirst: a link to the sign-in's callback that
// is not this browser's sign-in (no state, or another) is refused as such
// before anything it says is shown: its error_description does not appear
// as the identity provider's words, and the sign-in in progress goes on.
// The provider's own refusal, with the state, is shown.
func TestCallbackChecksTheStateFirst(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cl := b.client(nil)
	if st, _, _ := cl.get("/login"); st != http.StatusSeeOther {
		t.Fatalf("login: %d", st)
	}
	var ls loginState
	if !b.dash.sign.open("login", cl.cookies[loginCookie], &ls) {
		t.Fatal("no login in progress")
	}
	lure := "Your account is locked. Call support at 555-0100"
	for _, q := range []string{"", "&state=forged"} {
		st, _, body := cl.get("/auth/callback?error=server_error&error_description=" + url.QueryEscape(lure) + q)
		if st != http.StatusBadRequest || strings.Contains(body, "555-0100") || !strings.Contains(body, "this answer is not for the sign-in") {
			t.Fatalf("callback with an error and state %q: %d\n%s", q, st, body)
		}
		if cl.cookies[loginCookie] == "" {
			t.Fatalf("a callback that is not this browser's (state %q) ended its sign-in", q)
		}
	}
	st, _, body := cl.get("/auth/callback?error=access_denied&error_description=The+person+declined&state=" + url.QueryEscape(ls.State))
	if st != http.StatusUnauthorized || !strings.Contains(body, "refused the sign-in (access_denied): The person declined") {
		t.Fatalf("the provider's refusal: %d\n%s", st, body)
	}
	if cl.cookies[loginCookie] != "" {
		t.Error("the sign-in's cookie outlived its answer")
	}
}
