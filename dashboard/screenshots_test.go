package dashboard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshots takes the README's pictures of a confirmation card, in
// English and in German (a phone's width, the person in Berlin): with
// -update into docs/screenshots/, else into a temporary folder, after
// checking each page speaks its language.
func TestScreenshots(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	for _, c := range []struct{ lang, want string }{{"en", "Your agent asks you to approve these terms"}, {"de", "Ihr Agent bittet Sie, diesen Bedingungen zuzustimmen"}} {
		if err := b.accounts.SetUserTimeZone(b.ctx, b.bob.ID, "Europe/Berlin"); err != nil {
			t.Fatal(err)
		}
		_, _, token := b.askedToApprove(t, "Kick-off meeting", `{"fee":{"max":{"amount":"100.00","currency":"EUR"}}}`, meeting(3, 10, "office", "120"))
		if err := b.accounts.SetUserLanguage(b.ctx, b.bob.ID, c.lang); err != nil {
			t.Fatal(err)
		}
		tab := br.tabIn(c.lang)
		br.do(tab, "open the card", chromedp.EmulateViewport(420, 900), chromedp.Navigate(b.base+"/c/"+token),
			chromedp.WaitVisible(chromedp.CSS(`button[data-answer="confirm"]`)))
		if got := br.text(tab, "#ask-h"); got != c.want {
			t.Fatalf("%s card: %q", c.lang, got)
		}
		name := "card-" + c.lang
		br.shot(tab, name)
		if st, err := os.Stat(filepath.Join(br.shots, name+".png")); err != nil || st.Size() < 10_000 {
			t.Fatalf("%s: %v %v", name, st, err)
		}
		if strings.Contains(br.text(tab, "main"), "sha256:") && !strings.Contains(br.text(tab, "details.hash"), "sha256:") {
			t.Fatal("the subject_hash is out of its details")
		}
	}
}
