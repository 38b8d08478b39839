package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// A room opened with slots has a schema Taasky wrote: the request, the
// agreement and its calendar name its field in the reader's language,
// and not as the other side's words.
func TestSlotsFieldInTheReadersLanguageByMail(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ lang, label string }{
		{"ja", "打ち合わせの日時"},
		{"de", "Termin"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			nb := setupNotify(t)
			acc := NewAccounts(nb.pool)
			ua, err := acc.UserByEmail(nb.ctx, "alpha@example.test")
			if err != nil {
				t.Fatal(err)
			}
			if err := acc.SetUserLanguage(nb.ctx, ua.ID, c.lang); err != nil {
				t.Fatal(err)
			}
			slots := []json.RawMessage{
				json.RawMessage(`{"start":"2026-12-10T09:00:00Z","end":"2026-12-10T09:30:00Z"}`),
				json.RawMessage(`{"start":"2026-12-10T14:00:00Z","end":"2026-12-10T14:30:00Z"}`),
			}
			open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Slots: slots})
			if err != nil {
				t.Fatal(err)
			}
			inv, err := nb.rooms.InvitationByCode(nb.ctx, open.InviteURL, nil)
			if err != nil {
				t.Fatal(err)
			}
			pick := inv.Card.Options[1].SubjectHash
			if _, err := nb.rooms.AnswerInvitation(nb.ctx, open.InviteCode, PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: pick, Email: "pat@example.test"}); err != nil {
				t.Fatal(err)
			}
			cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, open.RoomToken, "approve", pick)
			if err != nil {
				t.Fatal(err)
			}
			req := nb.mailTo(t, "alpha@example.test", 1)
			for part, text := range map[string]string{"text": req.Text, "html": req.HTML} {
				if !strings.Contains(text, c.label) || strings.Contains(text, "Meeting time") {
					t.Errorf("the request's %s part (%s) does not name the field %q:\n%s", part, c.lang, c.label, text)
				}
			}
			if strings.Contains(req.Text, c.label+" (") {
				t.Errorf("the request (%s) marks Taasky's field as the other side's:\n%s", c.lang, req.Text)
			}
			nb.confirm(t, nb.a, open.RoomToken, cv)
			agreed := nb.mailTo(t, "alpha@example.test", 2)
			said := agreed.Text
			for _, a := range agreed.Attachments {
				said += "\n" + strings.ReplaceAll(string(a.Data), "\r\n ", "") // unfolded
			}
			if !strings.Contains(said, c.label) || strings.Contains(said, "Meeting time") {
				t.Errorf("the agreement and its calendar (%s) do not name the field %q:\n%s", c.lang, c.label, said)
			}
		})
	}
}
