package app

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// inviteCapState counts what an open writes, to show a refused one wrote
// nothing.
func (rb *roomsBundle) inviteCapState(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"rooms", "parties", "room_events", "river_job", "notification_deliveries", "invite_emails"} {
		var n int
		if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

func (rb *roomsBundle) openInviting(to string) (*OpenResult, error) {
	return rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Title: "Lunch", InviteEmail: to})
}

// TestInviteEmailDailyCap: an account may have at most the cap of
// invitations emailed in any 24 hours. Past it, an open with invite_email
// is refused with one line that names the field, the rule and the moment
// it is allowed again, and changes nothing; an open without it, and
// another account, go on. The window rolls: each invitation counts for
// 24 hours from its open.
func TestInviteEmailDailyCap(t *testing.T) {
	t.Parallel()
	rb := setupRoomsB(t)
	rb.rooms.inviteCap = 3
	t0 := rb.rooms.now()
	if _, err := rb.openInviting("pat@example.test"); err != nil {
		t.Fatal(err)
	}
	rb.advance(time.Hour)
	for _, to := range []string{"pat@example.test", "sam@example.test"} {
		if _, err := rb.openInviting(to); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(again time.Time) {
		t.Helper()
		before := rb.inviteCapState(t)
		_, err := rb.openInviting("kim@example.test")
		want := "invite_email: this account has had 3 invitations emailed in the last 24 hours, the most allowed; nothing was opened. " +
			"Open without invite_email and share the invite_url yourself, or try again from " + again.UTC().Format(time.RFC3339)
		if ErrorCodeOf(err) != ErrConflict || ErrorMessageOf(err) != want || len(want) > 300 || strings.Contains(want, "\n") {
			t.Fatalf("past the cap: %v (%s)\nwant %s", err, ErrorCodeOf(err), want)
		}
		if after := rb.inviteCapState(t); len(after) != len(before) || after["rooms"] != before["rooms"] ||
			after["river_job"] != before["river_job"] || after["invite_emails"] != before["invite_emails"] ||
			after["notification_deliveries"] != before["notification_deliveries"] || after["room_events"] != before["room_events"] {
			t.Fatalf("a refused open changed %v into %v", before, after)
		}
	}
	refused(t0.Add(24 * time.Hour))

	// The room opens without the email; another account is not capped.
	if open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema}); err != nil || open.InviteURL == "" {
		t.Fatalf("an open without invite_email at the cap: %v", err)
	}
	if _, err := rb.rooms.Open(rb.ctx, rb.b, OpenInput{Schema: meetingSchema, InviteEmail: "kim@example.test"}); err != nil {
		t.Fatalf("another account: %v", err)
	}

	// A second before the first invitation is a day old: still refused.
	// At that moment: one more, then refused until the next two age out.
	rb.advance(23*time.Hour - time.Second)
	refused(t0.Add(24 * time.Hour))
	rb.advance(time.Second)
	if _, err := rb.openInviting("kim@example.test"); err != nil {
		t.Fatalf("24 hours after the first: %v", err)
	}
	refused(t0.Add(25 * time.Hour))

	// Rows older than a day are forgotten as the account counts.
	rb.advance(2 * time.Hour)
	if _, err := rb.openInviting("lee@example.test"); err != nil {
		t.Fatal(err)
	}
	var kept int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM invite_emails WHERE account_id = $1`, rb.a.AccountID).Scan(&kept); err != nil || kept != 2 {
		t.Fatalf("%d invitation emails kept for a (%v), want 2 (the last day's)", kept, err)
	}
}

// TestInviteEmailDailyCapConcurrent: opens of one account racing past the
// cap: exactly the cap get their invitation emailed, the others are
// refused and leave nothing; opens without invite_email in the same
// account are not held up or refused.
func TestInviteEmailDailyCapConcurrent(t *testing.T) {
	t.Parallel()
	rb := setupRoomsB(t)
	rb.rooms.inviteCap = 5
	const inviting, plain = 24, 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	opened, refusals, plainErrs := 0, map[string]int{}, []error{}
	start := make(chan struct{})
	for i := range inviting + plain {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var err error
			if i < inviting {
				_, err = rb.openInviting("pat@example.test")
			} else {
				_, err = rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case i >= inviting && err != nil:
				plainErrs = append(plainErrs, err)
			case err == nil && i < inviting:
				opened++
			case err != nil:
				msg := ErrorMessageOf(err)
				refusals[msg[:strings.Index(msg, "; ")]]++
			}
		}()
	}
	close(start)
	wg.Wait()
	if opened != 5 || len(refusals) != 1 || refusals["invite_email: this account has had 5 invitations emailed in the last 24 hours, the most allowed"] != inviting-5 {
		t.Fatalf("%d opened with an invitation email, refusals %v; want 5 and %d", opened, refusals, inviting-5)
	}
	if len(plainErrs) > 0 {
		t.Fatalf("opens without invite_email: %v", plainErrs)
	}
	st := rb.inviteCapState(t)
	var jobs int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM river_job WHERE kind = 'notify_invite'`).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if st["rooms"] != 5+plain || st["invite_emails"] != 5 || jobs != 5 || st["notification_deliveries"] != 5 {
		t.Fatalf("after the race: %v, %d invitation jobs", st, jobs)
	}
	rb.checkClean(t)
}

// TestInviteEmailNoCap: a cap of 0 caps nothing and counts nothing.
func TestInviteEmailNoCap(t *testing.T) {
	t.Parallel()
	rb := setupRoomsB(t)
	for range 5 {
		if _, err := rb.openInviting("pat@example.test"); err != nil {
			t.Fatal(err)
		}
	}
	if st := rb.inviteCapState(t); st["invite_emails"] != 0 || st["rooms"] != 5 {
		t.Fatalf("%v", st)
	}
}

// TestPersonEmailCountsAgainstInviteCap: a person answering an invitation
// in the browser gives the address their news goes to, unchecked, and
// Taasky then writes there (their turn, agreed, closed) with the inviter's
// title: an agent that opened rooms without invite_email and answered each
// as a person with another address had Taasky write to any number of
// addresses past INVITE_EMAIL_DAILY_CAP. Such an address now counts
// against the inviter's account as an invitation email does; past the cap
// the answer is refused with the rule and writes nothing; an answer
// without an address, or with the one the invitation was emailed to, is
// not counted.
func TestPersonEmailCountsAgainstInviteCap(t *testing.T) {
	t.Parallel()
	rb := setupRoomsB(t)
	rb.rooms.inviteCap = 2
	t0 := rb.rooms.now()
	open := func(to string) *OpenResult {
		t.Helper()
		o, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Title: "Lunch", InviteEmail: to})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	emails := func() int { return rb.inviteCapState(t)["invite_emails"] }
	// Emailed to pat, answered as pat: one address written to, counted once.
	if _, err := rb.rooms.AnswerInvitation(rb.ctx, open("pat@example.test").InviteCode, PersonAnswer{Verdict: VerdictJoin, Email: "Pat@Example.test"}); err != nil || emails() != 1 {
		t.Fatalf("the invited address: %v, %d counted", err, emails())
	}
	rb.advance(time.Hour)
	if _, err := rb.rooms.AnswerInvitation(rb.ctx, open("").InviteCode, PersonAnswer{Verdict: VerdictJoin, Email: "v1@example.test"}); err != nil || emails() != 2 {
		t.Fatalf("another address: %v, %d counted", err, emails())
	}
	o := open("")
	before := rb.inviteCapState(t)
	_, err := rb.rooms.AnswerInvitation(rb.ctx, o.InviteCode, PersonAnswer{Verdict: VerdictJoin, Email: "v2@example.test"})
	want := "email: the sender of this invitation has had 2 people written to in the last 24 hours, the most allowed; " +
		"answer without an email address (keep this page's link), or try again from " + t0.Add(24*time.Hour).UTC().Format(time.RFC3339)
	if ErrorCodeOf(err) != ErrConflict || ErrorMessageOf(err) != want {
		t.Fatalf("past the cap: %v (%s)\nwant %s", err, ErrorCodeOf(err), want)
	}
	if after := rb.inviteCapState(t); after["parties"] != before["parties"] || after["room_events"] != before["room_events"] ||
		after["invite_emails"] != before["invite_emails"] || after["river_job"] != before["river_job"] {
		t.Fatalf("a refused answer changed %v into %v", before, after)
	}
	// Without an address the person is seated; another account's room is
	// not held by this one's count.
	if _, err := rb.rooms.AnswerInvitation(rb.ctx, o.InviteCode, PersonAnswer{Verdict: VerdictJoin}); err != nil || emails() != 2 {
		t.Fatalf("without an address: %v, %d counted", err, emails())
	}
	ob, err := rb.rooms.Open(rb.ctx, rb.b, OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.AnswerInvitation(rb.ctx, ob.InviteCode, PersonAnswer{Verdict: VerdictJoin, Email: "v2@example.test"}); err != nil {
		t.Fatalf("another account's invitation: %v", err)
	}
}

// TestInviteEmailCapOfOne: a cap of one says "1 invitation", not "1
// invitations" (INVITE_EMAIL_DAILY_CAP=1, an operator's strict setting).
func TestInviteEmailCapOfOne(t *testing.T) {
	t.Parallel()
	rb := setupRoomsB(t)
	rb.rooms.inviteCap = 1
	if _, err := rb.openInviting("pat@example.test"); err != nil {
		t.Fatal(err)
	}
	_, err := rb.openInviting("kim@example.test")
	if msg := ErrorMessageOf(err); ErrorCodeOf(err) != ErrConflict ||
		!strings.HasPrefix(msg, "invite_email: this account has had 1 invitation emailed in the last 24 hours, the most allowed;") {
		t.Fatalf("past a cap of one: %v (%s)", err, ErrorCodeOf(err))
	}
}

// TestPersonEmailCapOfOne: past a cap of one, an answer with an address
// is refused with "1 person written to", not "1 people".
func TestPersonEmailCapOfOne(t *testing.T) {
	t.Parallel()
	rb := setupRoomsB(t)
	rb.rooms.inviteCap = 1
	if _, err := rb.openInviting("pat@example.test"); err != nil {
		t.Fatal(err)
	}
	o, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Title: "Lunch"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rb.rooms.AnswerInvitation(rb.ctx, o.InviteCode, PersonAnswer{Verdict: VerdictJoin, Email: "v1@example.test"})
	if msg := ErrorMessageOf(err); ErrorCodeOf(err) != ErrConflict ||
		!strings.HasPrefix(msg, "email: the sender of this invitation has had 1 person written to in the last 24 hours, the most allowed;") {
		t.Fatalf("past a cap of one: %v (%s)", err, ErrorCodeOf(err))
	}
}
