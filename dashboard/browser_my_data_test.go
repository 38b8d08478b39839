package dashboard

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// postForm posts the page's form at css as the browser posts it (its
// fields, its CSRF token, the tab's cookies) and returns the answer's
// status, Content-Disposition and body: a download leaves the page where
// it is, so the test reads it through fetch.
func (br *browser) postForm(ctx context.Context, css string) (status, disposition, body string) {
	br.t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := chromedp.Run(c, chromedp.Evaluate[string](`(async () => {
		const f = document.querySelector(`+"`"+css+"`"+`);
		const r = await fetch(f.action, {method: 'POST', body: new URLSearchParams(new FormData(f))});
		return r.status + '\n' + r.headers.get('Content-Disposition') + '\n' + await r.text(); })()`, chromedp.EvalAwaitPromise))
	if err != nil {
		br.t.Fatal(err)
	}
	status, rest, _ := strings.Cut(out, "\n")
	disposition, body, _ = strings.Cut(rest, "\n")
	return status, disposition, body
}

// TestBrowserMyData: in Chromium, a signed-in person downloads their data
// from their settings page's own form, and a person who answered in the
// browser downloads theirs from their seat's page, in French: each gets
// their own JSON file as an attachment.
func TestBrowserMyData(t *testing.T) {
	b := setup(t)
	_, _, roomID := b.joined("Lunch", nil, `{"fee":{"max":{"amount":"43.21","currency":"EUR"}}}`)
	br := newBrowser(t, b)

	alice := br.tab()
	br.signIn(alice, "alice@example.test")
	br.do(alice, "the settings page", chromedp.Navigate(b.base+"/settings"), chromedp.WaitVisible(chromedp.CSS(`form[data-my-data] button`)))
	if s := br.text(alice, "form[data-my-data] button"); s != "Download my data" {
		t.Fatalf("the button: %q", s)
	}
	status, disposition, body := br.postForm(alice, "form[data-my-data]")
	var md app.MemberData
	if err := json.Unmarshal([]byte(body), &md); status != "200" || err != nil || disposition != `attachment; filename="taasky-my-data.json"` ||
		md.Profile.Email != "alice@example.test" || len(md.Rooms) != 1 || md.Rooms[0].ID != roomID || strings.Contains(body, "43.21") {
		t.Fatalf("alice's data: %s %s %v\n%s", status, disposition, err, body)
	}

	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", ""), Title: "Coffee"})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := b.rooms.InvitationByCode(b.ctx, open.InviteCode, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.rooms.AnswerInvitation(b.ctx, open.InviteCode, app.PersonAnswer{Verdict: negotiation.VerdictApprove,
		Hash: inv.Card.Options[0].SubjectHash, Email: "dave@home.test"})
	if err != nil {
		t.Fatal(err)
	}
	dave := br.tabIn("fr")
	br.do(dave, "the seat page", chromedp.Navigate(b.base+"/p/"+res.SeatToken), chromedp.WaitVisible(chromedp.CSS(`form[data-my-data] button`)))
	if s := br.text(dave, "form[data-my-data] button"); s != "Télécharger mes données" {
		t.Fatalf("the seat's button: %q", s)
	}
	status, disposition, body = br.postForm(dave, "form[data-my-data]")
	var pd app.PersonData
	if err := json.Unmarshal([]byte(body), &pd); status != "200" || err != nil || !strings.HasPrefix(disposition, `attachment; filename="taasky-my-data-room-`) ||
		pd.Email != "dave@home.test" || pd.Room.Title != "Coffee" || strings.Contains(body, res.SeatToken) {
		t.Fatalf("dave's data: %s %s %v\n%s", status, disposition, err, body)
	}
}
