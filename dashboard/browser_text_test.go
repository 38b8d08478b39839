package dashboard

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
)

// TestBrowserCardShowsTextAsWritten: a string the other side wrote reads
// on the card as it is bound by the subject_hash, its line breaks and runs
// of spaces kept (DESIGN §4: shown as written). Collapsed, "10 units\n\nno
// refunds" and "10 units no refunds", two different terms, read the same.
func TestBrowserCardShowsTextAsWritten(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	schema := json.RawMessage(`{"note":{"type":"string","label":"Note"}}`)
	const note = "10 units\n\nno   refunds"
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: schema, Title: "Order"})
	if err != nil {
		t.Fatal(err)
	}
	j, err := b.rooms.Join(b.ctx, b.beta, app.JoinInput{InviteCode: open.InviteCode, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := json.Marshal(map[string]string{"note": note})
	v, err := b.rooms.Propose(b.ctx, b.alpha, open.RoomToken, mv("offer", subject))
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, j.RoomToken, "approve", v.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	token, err := b.rooms.IssueOneTap(b.ctx, b.pool, j.View.RoomID, cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	tab := br.tab()
	br.do(tab, "open the link", chromedp.Navigate(b.base+"/c/"+token), chromedp.WaitVisible(chromedp.CSS(`button[data-answer="confirm"]`)))
	got, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-field="note"] dd .their-words').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if got != note {
		t.Errorf("the card reads %q, the terms say %q", got, note)
	}
}
