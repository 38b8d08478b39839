package dashboard

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// personNotices renders what the mails queued for the room's person would
// say now (the jobs are inserted; the harness works none), leaving out
// those that have nothing to say any more. Each is logged as the worker
// would log it (sent, or skipped), in the order they were queued: a
// notice waits for an earlier one still to be delivered (jobs' inOrder).
func (b *bundle) personNotices(t *testing.T, roomID int64) []*jobs.Notification {
	t.Helper()
	res, err := b.river.JobList(b.ctx, river.NewJobListParams().Kinds(jobs.EmailArgs{}.Kind()).First(100))
	if err != nil {
		t.Fatal(err)
	}
	var out []*jobs.Notification
	slices.SortFunc(res.Jobs, func(x, y *rivertype.JobRow) int { return cmp.Compare(x.ID, y.ID) }) // in the order they were queued
	for _, j := range res.Jobs {
		var a jobs.EmailArgs
		if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
			t.Fatal(err)
		}
		if a.UserID != 0 || a.RoomID != roomID {
			continue
		}
		d := jobs.Delivery{Notice: a.Notice, JobID: j.ID, JobCreatedAt: j.CreatedAt, Attempt: 1, Channel: jobs.ChannelEmail}
		n, err := b.notify.Notification(b.ctx, d)
		if s, skip := errors.AsType[*jobs.SkipError](err); skip {
			// As the worker would: a later notice waits for no skipped one.
			if err := b.notify.Record(b.ctx, d, jobs.Outcome{Status: jobs.StatusSkipped, Detail: s.Reason}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("notice %+v: %v", a.Notice, err)
		}
		// The worker would send it now: a later notice waits for it until then.
		if err := b.notify.Record(b.ctx, d, jobs.Outcome{Status: jobs.StatusSent}); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// newSchemaFR is card.new_schema_tag in French.
const newSchemaFR = "Nouveau schéma."

// TestPersonEmailLinkAndReceipt: the invitation page asks for an optional
// address (in the reader's language; a bad one is refused naming the
// field, and nothing changes); with none given, an emailed invitation's
// address is where the news goes. The mail of the person's turn links to
// their personal page: opened in another browser (a forwarded mail), it
// opens the seat as the personal link does, and nothing more. The agreed
// seat offers the receipt and the calendar entry; the address is never
// shown to the inviter; the mail's List-Unsubscribe page speaks of the room.
func TestPersonEmailLinkAndReceipt(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.MailFrom = "Taasky Rooms <rooms@example.test>" })
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", ""),
		Title: "Coffee", InviteEmail: "dave@stranger.test"})
	if err != nil {
		t.Fatal(err)
	}
	dave := b.client(nil)
	dave.lang = "fr"
	_, _, body := dave.get("/i/" + open.InviteCode)
	for _, want := range []string{"Votre adresse e-mail (facultatif)", "Laissez vide pour être prévenu à l&#39;adresse où cette invitation a été envoyée",
		`id="email-pick"`, `id="email-counter"`, `form="pick-answer" name="subject_hash"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the invitation page lacks %q", want)
		}
	}
	if strings.Contains(body, "dave@stranger.test") {
		t.Error("the invitation page shows the address it was sent to")
	}
	if !regexp.MustCompile(`form="pick-answer" name="subject_hash" value="sha256:[0-9a-f]{64}"`).MatchString(body) {
		t.Error("the pick button does not send the form with the address")
	}

	// A bad address: one error naming the field, in French; nothing changes.
	st, _, body := dave.post("/i/"+open.InviteCode, url.Values{"verdict": {"counter"}, "email": {"dave at home"},
		"f.meeting_time.0.start": {"2026-12-09T11:00"}, "f.meeting_time.0.end": {"2026-12-09T11:30"},
		"f.meeting_time.0.zone": {"Europe/Paris"}, "f.place.0.v": {"video"}})
	if st != http.StatusBadRequest || strings.Count(body, `role="alert"`) != 1 || !strings.Contains(body, "e-mail : doit être une adresse e-mail") ||
		!strings.Contains(body, `value="dave at home"`) {
		t.Fatalf("a bad address: %d %s", st, body)
	}
	if inv, err := b.rooms.InvitationByCode(b.ctx, open.InviteCode, nil); err != nil || !inv.Open {
		t.Fatalf("a refused answer leaves the invitation open: %v %+v", err, inv)
	}
	st, loc, _ := dave.post("/i/"+open.InviteCode, url.Values{"verdict": {"counter"}, "email": {""},
		"f.meeting_time.0.start": {"2026-12-09T11:00"}, "f.meeting_time.0.end": {"2026-12-09T11:30"},
		"f.meeting_time.0.zone": {"Europe/Paris"}, "f.place.0.v": {"video"}})
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/p/ps_") {
		t.Fatalf("counter: %d %q", st, loc)
	}
	seat := strings.TrimSuffix(strings.TrimPrefix(loc, "/p/"), "?welcome=1")
	if _, _, body := dave.get("/p/" + seat); strings.Contains(body, newSchemaFR) {
		t.Error("the new-schema note shows under the person's own proposal")
	}

	// The inviter's agent counters: Dave's turn, a mail to the
	// invitation's address, in French, with his personal link.
	v, err := b.rooms.Propose(b.ctx, b.alpha, open.RoomToken, moveInput{Verdict: "counter", Subject: meeting(9, 12, "video", "")})
	if err != nil {
		t.Fatal(err)
	}
	ns := b.personNotices(t, v.RoomID)
	if len(ns) != 1 || ns[0].To != "dave@stranger.test" || ns[0].Lang != "fr" || ns[0].RoomURL != b.base+"/p/"+seat || ns[0].OneTapURL != "" {
		t.Fatalf("Dave's your-turn notice: %+v", ns)
	}
	if _, _, body := dave.get("/p/" + seat); !strings.Contains(body, newSchemaFR) {
		t.Error("the new-schema note is missing while Dave is asked to confirm their terms")
	}

	// Forwarded: another browser opens the mail's link. It is the personal
	// link: the seat opens and is bound to that browser too, as the
	// personal link is; the address is not on the page.
	friend := b.client(nil)
	link, _ := url.Parse(ns[0].RoomURL)
	st, _, body = friend.get(link.Path)
	if st != 200 || !strings.Contains(body, b.base+"/p/"+seat) || strings.Contains(body, "dave@stranger.test") {
		t.Fatalf("the mail's link in another browser: %d %s", st, body)
	}
	if st, _, _ := friend.get("/p/ps_" + strings.Repeat("A", 43)); st != http.StatusNotFound {
		t.Errorf("a made-up personal link: %d", st)
	}

	// Dave approves: agreed. His page offers the receipt and the calendar.
	v, err = b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	if st, _, _ := dave.get("/p/" + seat + "/receipt.jws"); st != http.StatusConflict {
		t.Errorf("a receipt before the agreement: %d", st)
	}
	if _, err := b.rooms.AnswerAsPerson(b.ctx, seat, app.PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: v.TermsOnTable.Options[0].SubjectHash}); err != nil {
		t.Fatal(err)
	}
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, open.RoomToken, negotiation.VerdictApprove, v.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, v.RoomID, cv.ID, cv.SubjectHash, true); err != nil || d.State != negotiation.StateAgreed {
		t.Fatalf("agree: %v %+v", err, d)
	}
	_, _, body = dave.get("/p/" + seat)
	for _, want := range []string{`href="/p/` + seat + `/receipt.jws"`, `href="/p/` + seat + `/invite.ics"`, `href="/verify"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the agreed seat lacks %s", want)
		}
	}
	if strings.Contains(body, newSchemaFR) {
		t.Error("the new-schema note shows on an agreed room")
	}
	st, _, jws := dave.get("/p/" + seat + "/receipt.jws")
	if st != 200 || dave.header.Get("Content-Type") != "application/jose" {
		t.Fatalf("the receipt: %d %v", st, dave.header)
	}
	if r, err := b.dash.receipts.Verify(jws); err != nil || r.Room.ID != v.RoomID {
		t.Fatalf("the seat's receipt does not verify: %v", err)
	}
	st, _, ics := dave.get("/p/" + seat + "/invite.ics")
	// Its type names the method its METHOD says (RFC 5545 §8.1), as the
	// mail's attachment does; a published event has its organizer (RFC
	// 5546 §3.2.1): the sender of Taasky's mail.
	if st != 200 || dave.header.Get("Content-Type") != "text/calendar; charset=utf-8; method=PUBLISH" ||
		!strings.Contains(ics, "METHOD:PUBLISH\r\n") || !strings.Contains(ics, "DTSTART:20261209T110000Z") ||
		!strings.Contains(ics, "\r\nORGANIZER;CN=\"Taasky Rooms\":mailto:rooms@example.test\r\n") ||
		strings.Contains(strings.ReplaceAll(ics, "\r\n ", ""), seat) {
		t.Fatalf("the calendar: %d %s %s", st, dave.header.Get("Content-Type"), ics)
	}
	ns = b.personNotices(t, v.RoomID)
	if len(ns) != 1 || ns[0].Receipt != jws || ns[0].Card == nil {
		t.Fatalf("Dave's agreed notice (his turn is over) should carry the same receipt: %+v", ns)
	}

	// The inviter never sees the address.
	if _, _, body := b.client(&b.alice).get("/rooms/" + strconv.FormatInt(v.RoomID, 10)); strings.Contains(body, "dave@") {
		t.Error("the inviter's room page shows the person's address")
	}
	// The mail's List-Unsubscribe page speaks of this room.
	unsub, _ := url.Parse(ns[0].UnsubscribeURL)
	if _, _, body := dave.get(unsub.Path); !strings.Contains(body, "Taasky cessera de vous écrire au sujet de cette négociation") {
		t.Errorf("a person's unsubscribe page: %s", body)
	}
	if st, _, body := dave.post(unsub.Path, url.Values{}); st != 200 || !strings.Contains(body, "dave@stranger.test") {
		t.Errorf("unsubscribe: %d %s", st, body)
	}
}
