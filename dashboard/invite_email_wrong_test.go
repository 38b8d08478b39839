package dashboard

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestInvitationEmailRefusedAtItsField: a person's answer refused for the
// address they gave comes back with that address's field marked invalid
// and described by the refusal, and a counter's form open with what they
// typed (it was folded away, its values out of sight, and the field not
// tied to the message). Nothing is answered.
func TestInvitationEmailRefusedAtItsField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(10, 10, "office", "150"), Title: "Address typed wrong"})
	if err != nil {
		t.Fatal(err)
	}
	path := "/i/" + open.InviteCode
	pat := b.client(nil)
	_, _, page := pat.get(path)
	nonce, hash := valueShown(page, "seat_nonce"), valueShown(page, "subject_hash")
	field := func(body, id string) string {
		return regexp.MustCompile(`<input type="email" id="` + id + `"[^>]*>`).FindString(body)
	}

	st, _, body := pat.post(path, url.Values{"verdict": {"counter"}, "seat_nonce": {nonce}, "email": {"not-an-address"},
		"f.meeting_time.0.start": {"2026-12-10T11:00"}, "f.meeting_time.0.end": {"2026-12-10T11:30"}, "f.meeting_time.0.zone": {"Europe/Paris"},
		"f.place.0.v": {"video"}, "f.fee.0.amount": {"140"}})
	if st != http.StatusBadRequest || !strings.Contains(body, `id="invite-error"`) || !strings.Contains(body, "email: must be an email address") {
		t.Fatalf("counter with a bad address: %d", st)
	}
	if in := field(body, "email-counter"); !strings.Contains(in, `value="not-an-address"`) || !strings.Contains(in, `aria-invalid="true"`) ||
		!strings.Contains(in, `aria-describedby="invite-error email-counter-hint"`) {
		t.Fatalf("the counter's address field: %s", in)
	}
	if in := field(body, "email-pick"); strings.Contains(in, "aria-invalid") {
		t.Fatalf("the pick's address field is marked: %s", in)
	}
	if !strings.Contains(body, `<details class="counter" open>`) || !strings.Contains(body, `name="f.fee.0.amount" value="140"`) {
		t.Fatal("the counter typed is folded away or lost")
	}

	st, _, body = pat.post(path, url.Values{"verdict": {"approve"}, "seat_nonce": {nonce}, "subject_hash": {hash}, "email": {"still wrong"}})
	if st != http.StatusBadRequest {
		t.Fatalf("pick with a bad address: %d", st)
	}
	if in := field(body, "email-pick"); !strings.Contains(in, `aria-invalid="true"`) || !strings.Contains(in, `value="still wrong"`) {
		t.Fatalf("the pick's address field: %s", in)
	}
	if strings.Contains(field(body, "email-counter"), "aria-invalid") || strings.Contains(body, `<details class="counter" open>`) {
		t.Fatal("the counter is marked for the pick's address")
	}
	if r, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken); err != nil || r.Round != 1 || r.State != "draft" {
		t.Fatalf("the room after the refusals: %v round %d %s", err, r.Round, r.State)
	}
}
