package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// TestSeatAfterItsAddressIsForgotten: a person answers an emailed
// invitation in the browser, giving their own address, and the room is
// agreed; the agreed mail waits for them. Once the room ended more than
// the one-tap links' period ago, River's hourly purge forgets the address
// (theirs and the invitation's): the mail still queued has no one to go to
// and is not sent, their personal page still opens the agreed room with
// its receipt and calendar entry, and never shows an address; their mail's
// List-Unsubscribe link then says what it does, naming no address.
func TestSeatAfterItsAddressIsForgotten(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", ""),
		Title: "Coffee", InviteEmail: "dave@stranger.test"})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := b.rooms.InvitationByCode(b.ctx, open.InviteCode, nil)
	if err != nil {
		t.Fatal(err)
	}
	hash := inv.Card.Options[0].SubjectHash
	dave := b.client(nil)
	dave.get("/i/" + open.InviteCode)
	st, loc, _ := dave.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {string(hash)}, "email": {"dave@home.test"}})
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/p/ps_") {
		t.Fatalf("the pick: %d %q", st, loc)
	}
	seat := strings.TrimSuffix(strings.TrimPrefix(loc, "/p/"), "?welcome=1")
	v, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	roomID := v.RoomID
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, open.RoomToken, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, roomID, cv.ID, cv.SubjectHash, true)
	if err != nil || d.State != negotiation.StateAgreed {
		t.Fatalf("agree: %v %+v", err, d)
	}
	ns := b.personNotices(t, roomID)
	if len(ns) != 1 || ns[0].To != "dave@home.test" || ns[0].Receipt == "" {
		t.Fatalf("Dave's agreed notice, before: %+v", ns)
	}
	unsub, _ := url.Parse(ns[0].UnsubscribeURL)

	// River's purge, 31 days on (the one-tap links' period, 30 days).
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.PurgeWorker{Tokens: app.NewOAuth(b.pool),
		Data: app.NewRetention(b.pool, app.RetentionPeriods{DeliveryLog: 90 * 24 * time.Hour, OneTap: 30 * 24 * time.Hour, Webhooks: 30 * 24 * time.Hour}),
		Now:  func() time.Time { return time.Now().Add(31 * 24 * time.Hour) }})
	const queue = "purge_only" // the notices' jobs stay where they are
	rc, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{Workers: workers,
		Queues: map[string]river.QueueConfig{queue: {MaxWorkers: 1}}, FetchCooldown: jobs.FetchCooldown, FetchOnlyKnownKinds: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(b.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Stop(context.Background()) })
	events, cancel := rc.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	res, err := rc.Insert(b.ctx, jobs.PurgeArgs{}, &river.InsertOpts{Queue: queue})
	if err != nil {
		t.Fatal(err)
	}
	for ev := range events {
		if ev.Job.ID == res.Job.ID {
			if ev.Kind != river.EventKindJobCompleted {
				t.Fatalf("the purge: %s %v", ev.Kind, ev.Job.Errors)
			}
			break
		}
	}

	var left int
	if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM parties p JOIN rooms r ON r.id = p.room_id
		WHERE r.id = $1 AND (p.person_email IS NOT NULL OR r.invite_email IS NOT NULL)`, roomID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("the room still holds an address (%d rows, %v)", left, err)
	}
	if ns := b.personNotices(t, roomID); len(ns) != 0 {
		t.Errorf("a notice still goes to the person whose address was forgotten: %+v", ns[0])
	}
	st, _, body := dave.get("/p/" + seat)
	for _, want := range []string{`href="/p/` + seat + `/receipt.jws"`, `href="/p/` + seat + `/invite.ics"`} {
		if st != 200 || !strings.Contains(body, want) {
			t.Errorf("the seat, its address forgotten: %d, lacks %s", st, want)
		}
	}
	if strings.Contains(body, "dave@") {
		t.Error("the seat shows an address")
	}
	st, _, jws := dave.get("/p/" + seat + "/receipt.jws")
	if st != 200 {
		t.Fatalf("the receipt: %d", st)
	}
	if r, err := b.dash.receipts.Verify(jws); err != nil || r.Room.ID != roomID {
		t.Errorf("the seat's receipt does not verify: %v", err)
	}
	if st, _, ics := dave.get("/p/" + seat + "/invite.ics"); st != 200 || !strings.Contains(ics, "DTSTART:20261209T") {
		t.Errorf("the calendar: %d %s", st, ics)
	}
	if st, _, body := dave.post(unsub.Path, url.Values{}); st != 200 || !strings.Contains(body, "Taasky will stop emailing you about this negotiation") ||
		strings.Contains(body, "dave@") {
		t.Errorf("the unsubscribe link after the purge: %d %s", st, body)
	}
}
