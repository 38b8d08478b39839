package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// The records and decisions besides a room's moves that nodes whose
// clocks are off the database's must agree on (clock_skew_test.go has the
// nodes).

// within reports whether at lies in the database's moments from–to.
func within(at, from, to time.Time) bool { return !at.Before(from) && !at.After(to) }

// TestSkewedNodeOneTapAndReceipt: a one-tap answer on a node 30 s fast or
// slow is used at the database's moment, the one the room's log keeps for
// the answer, and the receipt of the agreement it makes is issued at that
// moment too: never before the agreement it signs, never 30 s after.
func TestSkewedNodeOneTapAndReceipt(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	keys := testReceiptKeys(t)
	for _, off := range []time.Duration{clockSkew, -clockSkew} {
		n := rb.node(t, off, negotiation.Pace{})
		ta, tb := rb.openOn(t, n, rb.dbNow(t).Add(time.Hour).Truncate(time.Second))
		v, err := n.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
		if err != nil {
			t.Fatal(err)
		}
		hash := v.TermsOnTable.Options[0].SubjectHash
		cb, _, err := n.RequestConfirmation(rb.ctx, rb.b, tb, negotiation.VerdictApprove, hash)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.DecideAsOwner(rb.ctx, rb.b.OwnerUserID, v.RoomID, cb.ID, hash, true); err != nil {
			t.Fatal(err)
		}
		ca, _, err := n.RequestConfirmation(rb.ctx, rb.a, ta, negotiation.VerdictApprove, hash)
		if err != nil {
			t.Fatal(err)
		}
		token, err := n.IssueOneTap(rb.ctx, rb.pool, v.RoomID, ca.ID, "email")
		if err != nil {
			t.Fatal(err)
		}
		before := rb.dbNow(t)
		d, err := n.DecideOneTap(rb.ctx, token, hash, true)
		if err != nil || d.State != negotiation.StateAgreed {
			t.Fatalf("one-tap: %+v, %v", d, err)
		}
		after := rb.dbNow(t)
		if d.OneTap == nil || d.OneTap.UsedAt == nil || !within(*d.OneTap.UsedAt, before, after) {
			t.Errorf("node %s off: the link's page says it was used at %v, outside the database's %s–%s", off, d.OneTap.UsedAt, before, after)
		}
		var used time.Time
		if err := rb.pool.QueryRow(rb.ctx, `SELECT used_at FROM onetap_tokens WHERE token_hash = $1`, secretHash(token)).Scan(&used); err != nil {
			t.Fatal(err)
		}
		if !within(used, before, after) {
			t.Errorf("node %s off: the link's used_at is %s, outside the database's %s–%s", off, used, before, after)
		}
		card, err := n.OneTapCard(rb.ctx, token)
		if err != nil || card.UsedAt == nil || !card.UsedAt.Equal(used) {
			t.Errorf("node %s off: the link's page later says used at %v (%v), want %s", off, card.UsedAt, err, used)
		}
		var event string
		if err := rb.pool.QueryRow(rb.ctx, `SELECT event FROM room_events WHERE room_id = $1 ORDER BY seq DESC LIMIT 1`, v.RoomID).Scan(&event); err != nil {
			t.Fatal(err)
		}
		var ev struct{ At time.Time }
		if err := json.Unmarshal([]byte(event), &ev); err != nil {
			t.Fatal(err)
		}
		if !ev.At.Equal(used) {
			t.Errorf("node %s off: the log keeps the answer at %s, the link was used at %s", off, ev.At, used)
		}
		jws, err := n.Receipt(rb.ctx, v.RoomID)
		if err != nil {
			t.Fatal(err)
		}
		r, err := keys.Verify(jws)
		if err != nil {
			t.Fatal(err)
		}
		if r.IssuedAt.Before(r.Room.AgreedAt) || !within(r.IssuedAt, before, after) {
			t.Errorf("node %s off: the receipt was issued at %s, for an agreement at %s (the database's %s–%s)", off, r.IssuedAt, r.Room.AgreedAt, before, after)
		}
	}
}

// TestSkewedNodeOpensWithDeadline: whether a given deadline is ahead, and
// within MaxDeadline, is the database's clock's to say at the open, as
// for every later move: a node 30 s fast opens a room due 10 s from now
// (by the database) and one 30 s slow a room due MaxDeadline less 10 s
// from now; neither opens one due 10 s ago or MaxDeadline and 10 s ahead.
func TestSkewedNodeOpensWithDeadline(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	fast, slow := rb.node(t, clockSkew, negotiation.Pace{}), rb.node(t, -clockSkew, negotiation.Pace{})
	open := func(n *Rooms, deadline time.Time) error {
		_, err := n.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Deadline: &deadline})
		return err
	}
	ahead := clockSkew / 3
	if err := open(fast, rb.dbNow(t).Add(ahead)); err != nil {
		t.Errorf("fast node, a deadline %s ahead by the database's clock: %v", ahead, err)
	}
	if err := open(slow, rb.dbNow(t).Add(negotiation.MaxDeadline-ahead)); err != nil {
		t.Errorf("slow node, a deadline %s within MaxDeadline by the database's clock: %v", ahead, err)
	}
	for _, n := range []*Rooms{fast, slow} {
		if err := open(n, rb.dbNow(t).Add(-ahead)); err == nil || !strings.Contains(err.Error(), "deadline must be in the future") {
			t.Errorf("node %s off, a deadline %s past: %v, want refused", time.Until(n.now()).Round(time.Second), ahead, err)
		}
		if err := open(n, rb.dbNow(t).Add(negotiation.MaxDeadline+ahead)); err == nil || !strings.Contains(err.Error(), "deadline must be at most") {
			t.Errorf("node %s off, a deadline %s past MaxDeadline: %v, want refused", time.Until(n.now()).Round(time.Second), ahead, err)
		}
	}
	var rooms int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM rooms`).Scan(&rooms); err != nil || rooms != 2 {
		t.Errorf("%d rooms (%v), want the 2 opened", rooms, err)
	}
	rb.checkClean(t)
}

// TestSkewedPurgeKeepsMarks: a purge on a worker 30 s fast does not take
// the limits' marks a join still reads by the database's clock (their 30
// days not over), so the rule between two accounts still withholds the
// verdict of a limit moved since.
func TestSkewedPurgeKeepsMarks(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	n := rb.node(t, 0, negotiation.Pace{})
	meet := func(openLimits, joinLimits string) []string {
		t.Helper()
		open, err := n.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Limits: json.RawMessage(openLimits)})
		if err != nil {
			t.Fatal(err)
		}
		j, err := n.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema, Limits: json.RawMessage(joinLimits)})
		if err != nil {
			t.Fatal(err)
		}
		return j.View.NoDealPossible
	}
	if nd := meet(minFee(80000), victimFee); !slices.Equal(nd, []string{"fee"}) {
		t.Fatalf("first room: %v", nd)
	}
	// Its marks 30 days old less 10 s, by the database's clock.
	if _, err := rb.pool.Exec(rb.ctx, `UPDATE limit_marks SET joined_at = statement_timestamp() - $1::interval`,
		(negotiation.NoDealMarksKept - clockSkew/3).String()); err != nil {
		t.Fatal(err)
	}
	purged, err := NewRetention(rb.pool, RetentionPeriods{}).PurgeOld(rb.ctx, time.Now().Add(clockSkew), time.Now().Add(time.Minute))
	if err != nil || purged["limit_marks"] != 0 {
		t.Errorf("a purger 30 s fast deleted %d marks (%v) a join still reads", purged["limit_marks"], err)
	}
	if nd := meet(minFee(75000), victimFee); len(nd) != 0 {
		t.Errorf("one moved, after a purge 30 s fast: told %v, want withheld", nd)
	}
}

// TestSkewedNodeSessions: a person's session begins, is renewed and ends
// at the database's moments whichever node reads it: a node 30 s fast
// neither signs them out 10 s before their session ends nor leaves it out
// of their list, one 30 s slow does not take a session 10 s after it
// ended, and the moments Settings lists are the database's.
func TestSkewedNodeSessions(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	fast, slow := rb.accountsOff(clockSkew), rb.accountsOff(-clockSkew)
	user := rb.a.OwnerUserID
	for _, n := range []*Accounts{fast, slow} {
		before := rb.dbNow(t)
		_, s, err := n.StartSession(rb.ctx, user, SessionDevice{Browser: "Firefox"})
		if err != nil {
			t.Fatal(err)
		}
		after := rb.dbNow(t)
		if !within(s.CreatedAt, before, after) || !s.LastSeenAt.Equal(s.CreatedAt) || !s.ExpiresAt.Equal(s.CreatedAt.Add(SessionIdle)) {
			t.Errorf("a session begun on a node %s off: %+v, not at the database's %s–%s", time.Until(n.now()).Round(time.Second), s, before, after)
		}
	}
	token, s, err := slow.StartSession(rb.ctx, user, SessionDevice{Browser: "Safari"})
	if err != nil {
		t.Fatal(err)
	}
	set := func(sql string) {
		t.Helper()
		if _, err := rb.pool.Exec(rb.ctx, `UPDATE user_sessions SET `+sql+` WHERE id = $1`, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	// It ends 10 s from now by the database's clock.
	set(`expires_at = statement_timestamp() + interval '10 seconds'`)
	if _, err := fast.SessionUser(rb.ctx, token); err != nil {
		t.Errorf("fast node, a session 10 s before its end: %v", err)
	}
	if ss, err := fast.Sessions(rb.ctx, user); err != nil || !slices.ContainsFunc(ss, func(x Session) bool { return x.ID == s.ID }) {
		t.Errorf("fast node lists %d sessions (%v) without one 10 s before its end", len(ss), err)
	}
	// It ended 10 s ago.
	set(`expires_at = statement_timestamp() - interval '10 seconds'`)
	if _, err := slow.SessionUser(rb.ctx, token); ErrorCodeOf(err) != ErrNotFound {
		t.Errorf("slow node, a session 10 s after its end: %v, want it ended", err)
	}
	// Last used 10 minutes ago: the slow node's use renews it at the
	// database's moment.
	set(`last_seen_at = statement_timestamp() - interval '10 minutes', expires_at = statement_timestamp() + interval '1 day'`)
	before := rb.dbNow(t)
	in, err := slow.SessionUser(rb.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	after := rb.dbNow(t)
	if !within(in.Session.LastSeenAt, before, after) || !in.Session.ExpiresAt.Equal(in.Session.LastSeenAt.Add(SessionIdle)) {
		t.Errorf("slow node renewed the session at %s (ends %s), not at the database's %s–%s", in.Session.LastSeenAt, in.Session.ExpiresAt, before, after)
	}
}

// TestSkewedNodesAudit: the audit log's entries, listed in the order they
// were written, carry the database's moments whichever node wrote them:
// an agent created on a node 30 s fast and the account renamed right
// after on one 30 s slow read in their order, not the rename 60 s before
// the agent.
func TestSkewedNodesAudit(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	fast, slow := rb.accountsOff(clockSkew), rb.accountsOff(-clockSkew)
	before := rb.dbNow(t)
	if _, _, err := fast.CreateAgent(rb.ctx, "alpha", "second", "alpha@example.test"); err != nil {
		t.Fatal(err)
	}
	if _, err := slow.RenameAccount(rb.ctx, rb.a.OwnerUserID, "alpha", "Alpha renamed"); err != nil {
		t.Fatal(err)
	}
	after := rb.dbNow(t)
	entries, _, err := fast.AuditLog(rb.ctx, rb.a.OwnerUserID, "alpha", "")
	if err != nil || len(entries) < 2 {
		t.Fatalf("%d entries (%v)", len(entries), err)
	}
	renamed, created := entries[0], entries[1] // newest first
	if renamed.Action != AuditAccountRenamed || created.Action != AuditAgentCreated {
		t.Fatalf("entries %s, %s", renamed.Action, created.Action)
	}
	for _, e := range []AuditEntry{created, renamed} {
		if !within(e.At, before, after) {
			t.Errorf("%s at %s, outside the database's %s–%s", e.Action, e.At, before, after)
		}
	}
	if renamed.At.Before(created.At) {
		t.Errorf("the log lists the rename (%s) after the agent's creation (%s) but at an earlier moment", renamed.At, created.At)
	}
}

// TestSkewedNodesTestPush: "Send a test" goes once a minute by the
// database's clock whichever node a person's requests reach: a test right
// after one sent through a node a minute behind is refused, and the
// refusal names the moment the first was sent, not one 30 s ahead.
func TestSkewedNodesTestPush(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.subscribe(t, "alpha@example.test", "phone")
	svc := func(off time.Duration) *Notifications {
		n := nb.node(t, off, negotiation.Pace{})
		s, err := NewNotifications(NotificationsConfig{Pool: nb.pool, River: n.river, Rooms: n,
			UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: n.baseURL})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	fast, slow := svc(clockSkew), svc(-clockSkew)
	user := nb.a.OwnerUserID
	before := nb.dbNow(t)
	if _, err := slow.SendTestPush(nb.ctx, user, 0); err != nil {
		t.Fatal(err)
	}
	after := nb.dbNow(t)
	_, err := fast.SendTestPush(nb.ctx, user, 0)
	var e *Error
	if !errors.As(err, &e) || e.Code != ErrConflict || len(e.Words.Args) != 2 {
		t.Fatalf("a second test right after, on a node a minute ahead: %v, want refused", err)
	}
	if sent, ok := e.Words.Args[0].(Moment); !ok || !within(time.Time(sent), before, after) {
		t.Errorf("the refusal says the first test was sent at %v, outside the database's %s–%s", e.Words.Args[0], before, after)
	}
}

// TestSkewedWorkerRecordsDelivery: a worker 30 s slow that records an
// email's refusal for good writes the delivery log's line and the note the
// room's readers see (rooms.undelivered) at the database's moment, not 30
// s before the moments around them.
func TestSkewedWorkerRecordsDelivery(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	n := rb.node(t, -clockSkew, negotiation.Pace{})
	open, err := n.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: n.river, Rooms: n,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: n.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	before := rb.dbNow(t)
	d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicInvite, RoomID: open.View.RoomID, Side: negotiation.SideA, UserID: rb.a.OwnerUserID},
		JobID: 1 << 40, Attempt: 1, Channel: jobs.ChannelEmail}
	if err := svc.Record(rb.ctx, d, jobs.Outcome{Status: jobs.StatusFailed, Detail: "550 no such user", Recipient: "nobody@example.test"}); err != nil {
		t.Fatal(err)
	}
	after := rb.dbNow(t)
	var created, updated, noted time.Time
	if err := rb.pool.QueryRow(rb.ctx, `SELECT created_at, updated_at FROM notification_deliveries WHERE job_id = $1`, d.JobID).Scan(&created, &updated); err != nil {
		t.Fatal(err)
	}
	if err := rb.pool.QueryRow(rb.ctx, `SELECT (undelivered->'a'->>'invite')::timestamptz FROM rooms WHERE id = $1`, d.RoomID).Scan(&noted); err != nil {
		t.Fatal(err)
	}
	for what, at := range map[string]time.Time{"the log's line created": created, "the log's line updated": updated, "the room's note": noted} {
		if !within(at, before, after) {
			t.Errorf("%s at %s, outside the database's %s–%s", what, at, before, after)
		}
	}
}

// accountsOff is the accounts service of a node whose clock is off by off.
func (rb *roomsBundle) accountsOff(off time.Duration) *Accounts {
	a := NewAccounts(rb.pool)
	a.now = func() time.Time { return time.Now().Add(off) }
	return a
}
