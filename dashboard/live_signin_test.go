package dashboard

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestSignInAgainLeadsBackToThePage: a room page on its side b, and the
// rooms list filtered to what waits, are told their session ended; the
// "sign in again" link each offers leads, through the sign-in, back to
// the same page, side or filter included. Before, the room's link lost
// ?side= (and the room opened on the other seat of a person who has
// both), the list's its filter.
func TestSignInAgainLeadsBackToThePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, roomID, _, _ := b.askedBeta("Signed out while reading", 3)
	live := regexp.MustCompile(`data-live="([^"]+)"`)
	for _, tc := range []struct {
		who  app.User
		page string
	}{{b.bob, fmt.Sprintf("/rooms/%d?side=b", roomID)}, {b.alice, "/?state=waiting"}} {
		st, _, body := b.client(&tc.who).get(tc.page)
		m := live.FindStringSubmatch(body)
		if st != http.StatusOK || m == nil {
			t.Fatalf("%s: %d, no live address", tc.page, st)
		}
		path := html.UnescapeString(m[1])
		s := b.openLive(t, tc.who, path)
		if err := b.accounts.EndSessions(b.ctx, tc.who.ID); err != nil {
			t.Fatal(err)
		}
		said := until(t, s, "0")
		link := regexp.MustCompile(`"link":"(/login\?next=[^"]+)"`).FindStringSubmatch(said)
		if link == nil {
			t.Fatalf("%s (stream %s): no sign-in link:\n%s", tc.page, path, said)
		}
		at, err := url.Parse(link[1])
		if err != nil {
			t.Fatal(err)
		}
		// Signing in again through the link ends on the page.
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar}
		provider, id := oidcStart(t, b, browser, at.Query().Get("next"))
		resp, err := browser.PostForm(provider, url.Values{"id": {id}, "email": {tc.who.Email}})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := resp.Request.URL.RequestURI(); resp.StatusCode != http.StatusOK || got != tc.page {
			t.Errorf("signed in again from %s's link %s: %d at %s", tc.page, link[1], resp.StatusCode, got)
		}
	}
}
