package app

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// The tests of processes whose clocks are off the database's: a node is a
// Rooms on the bundle's database with no simulated clock (RoomsConfig.Now
// nil) and its own clock skewed (ProcessNow), as a web node or a worker
// on a machine whose NTP broke. Every decision about a room's stored
// moments must follow the database's clock, whichever node makes it.

const clockSkew = 30 * time.Second

// node is a Rooms on rb's database whose process clock is off the real
// one by off.
func (rb *roomsBundle) node(t *testing.T, off time.Duration, pace negotiation.Pace) *Rooms {
	t.Helper()
	cfg := rb.cfg
	cfg.Now = nil
	cfg.ProcessNow = func() time.Time { return time.Now().Add(off) }
	cfg.Pace = pace
	r, err := NewRooms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// dbNow is the database's clock.
func (rb *roomsBundle) dbNow(t *testing.T) time.Time {
	t.Helper()
	var at time.Time
	if err := rb.pool.QueryRow(rb.ctx, `SELECT statement_timestamp()`).Scan(&at); err != nil {
		t.Fatal(err)
	}
	return at.UTC()
}

// waitPast waits until the database's clock is past at (a condition, not
// a duration: the moment is a second or two away).
func (rb *roomsBundle) waitPast(t *testing.T, at time.Time) {
	t.Helper()
	for !rb.dbNow(t).After(at) {
		time.Sleep(50 * time.Millisecond)
	}
}

// openOn opens a room on node n with the deadline given and joins it
// there; it returns both tokens.
func (rb *roomsBundle) openOn(t *testing.T, n *Rooms, deadline time.Time) (string, string) {
	t.Helper()
	open, err := n.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Deadline: &deadline})
	if err != nil {
		t.Fatal(err)
	}
	j, err := n.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	return open.RoomToken, j.RoomToken
}

// TestSkewedNodeDeadline: a room's deadline passes at the database's
// moment on every node. A node 30 s fast neither refuses a move as
// "deadline has passed" nor lapses the room in its sweep while the room is
// open; a node 30 s slow neither takes a move after the deadline nor
// leaves the due room open in its sweep.
func TestSkewedNodeDeadline(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	fast, slow := rb.node(t, clockSkew, negotiation.Pace{}), rb.node(t, -clockSkew, negotiation.Pace{})

	// Due in 10 minutes by the database: open everywhere.
	ta, _ := rb.openOn(t, slow, rb.dbNow(t).Add(clockSkew/3).Truncate(time.Second).Add(10*time.Minute))
	if _, err := fast.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatalf("fast node, a room whose deadline is ahead: %v", err)
	}
	// Due in 10 s by the database: the fast node's clock is past it.
	tc, _ := rb.openOn(t, slow, rb.dbNow(t).Add(clockSkew/3).Truncate(time.Second))
	v, err := fast.Read(rb.ctx, rb.a, tc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(v.Next.Say, "deadline has passed") {
		t.Errorf("fast node reads a room whose deadline is ahead as closing: %q", v.Next.Say)
	}
	if _, err := fast.Propose(rb.ctx, rb.a, tc, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Errorf("fast node refused a move before the deadline: %v", err)
	}
	if n, err := fast.CloseDue(rb.ctx, 10); err != nil || n != 0 {
		t.Errorf("fast node's sweep closed %d rooms (%v) none of which the database's clock has due", n, err)
	}
	if v, err := rb.rooms.Read(rb.ctx, rb.a, tc); err != nil {
		t.Fatal(err)
	} else if v.State != negotiation.StateAwaiting {
		t.Errorf("room after the fast node's sweep: %s (%s), want awaiting", v.State, v.ClosedReason)
	}

	// Due in a second by the database; once it passed, the slow node's
	// clock is still 29 s before it.
	deadline := rb.dbNow(t).Add(time.Second)
	td, _ := rb.openOn(t, slow, deadline)
	rb.waitPast(t, deadline)
	if _, err := slow.Propose(rb.ctx, rb.a, td, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err == nil || !strings.Contains(err.Error(), "deadline has passed") {
		t.Errorf("slow node, a move after the deadline: %v, want refused (the deadline has passed)", err)
	}
	v, err = slow.Read(rb.ctx, rb.a, td)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Next.Say, "deadline has passed") {
		t.Errorf("slow node reads a room past its deadline as open: %q", v.Next.Say)
	}
	n, err := slow.CloseDue(rb.ctx, 10)
	if err != nil || n != 1 {
		t.Errorf("slow node's sweep found %d due rooms (%v), want 1", n, err)
	}
	var state, reason string
	if err := rb.pool.QueryRow(rb.ctx, `SELECT state, coalesce(closed_reason, '') FROM rooms WHERE id = $1`, v.RoomID).Scan(&state, &reason); err != nil {
		t.Fatal(err)
	}
	if state != "closed" || reason != "lapsed" {
		t.Errorf("room past its deadline after the slow node's sweep: %s %s, want closed lapsed", state, reason)
	}

	// Rooms opened on either node open at the database's moment: the
	// invitation's end the sweep reads (rooms.expires_at) is the one the
	// room keeps, 72 hours after it.
	for _, n := range []*Rooms{fast, slow} {
		before := rb.dbNow(t)
		open, err := n.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
		if err != nil {
			t.Fatal(err)
		}
		after := rb.dbNow(t)
		v, err := rb.rooms.Read(rb.ctx, rb.a, open.RoomToken)
		if err != nil {
			t.Fatal(err)
		}
		var expires time.Time
		if err := rb.pool.QueryRow(rb.ctx, `SELECT expires_at FROM rooms WHERE id = $1`, v.RoomID).Scan(&expires); err != nil {
			t.Fatal(err)
		}
		if opened := expires.Add(-negotiation.InvitationTTL); opened.Before(before) || opened.After(after) {
			t.Errorf("a room opened on a node %s off opened at %s, outside the database's %s–%s", time.Until(n.now()).Round(time.Second), opened, before, after)
		}
	}
	rb.checkClean(t) // the columns the sweep reads are the rooms' own
}

// TestSkewedNodesCooldown: one side's counters on two nodes whose clocks
// are a minute apart keep the cool-down the database's clock measures: the
// fast node does not let a counter through right after one the slow node
// took, and the moments the log keeps are the database's.
func TestSkewedNodesCooldown(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	pace := negotiation.Pace{Cooldown: 40 * time.Second} // less than the nodes' minute apart, more than a test takes
	fast, slow := rb.node(t, clockSkew, pace), rb.node(t, -clockSkew, pace)
	ta, tb := rb.openOn(t, slow, rb.dbNow(t).Add(time.Hour).Truncate(time.Second))
	if _, err := slow.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	before := rb.dbNow(t)
	if _, err := slow.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(11, "")}); err != nil {
		t.Fatal(err)
	}
	after := rb.dbNow(t)
	if _, err := fast.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "need_more_detail", Fields: []string{"fee"}}); err != nil {
		t.Fatal(err)
	}
	var event string
	if err := rb.pool.QueryRow(rb.ctx, `SELECT e.event FROM room_events e JOIN parties p ON p.room_id = e.room_id
		WHERE p.token_hash = $1 AND e.side = 'b' AND e.kind = 'propose' ORDER BY e.seq DESC LIMIT 1`, rb.rooms.seatHashOf(tb).token).Scan(&event); err != nil {
		t.Fatal(err)
	}
	var ev struct{ At time.Time }
	if err := json.Unmarshal([]byte(event), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.At.Before(before) || ev.At.After(after) {
		t.Errorf("the slow node logged b's counter at %s, outside the database's %s–%s", ev.At, before, after)
	}
	_, err := fast.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(12, "")})
	if err == nil {
		t.Fatalf("fast node took b's counter right after the slow node's, within the %s cool-down", pace.Cooldown)
	}
	v, err := fast.Read(rb.ctx, rb.b, tb)
	if err != nil {
		t.Fatal(err)
	}
	next, perr := time.Parse(time.RFC3339, v.NextCounterAt)
	if want := pace.NextCounterAt(ev.At); perr != nil || !next.Equal(want) {
		t.Errorf("fast node says b may counter again from %q, want %s (the cool-down from the counter's moment)", v.NextCounterAt, want)
	}
	if strings.Contains(v.Next.Say, "counter,") || !strings.Contains(v.Next.Say, "counter again from") {
		t.Errorf("fast node offers b a counter during the cool-down: %q", v.Next.Say)
	}
}

// TestSkewedNodeReminders: a confirmation's reminder is due at the moment
// the database's clock reaches it, whichever node's sweep looks: a leader
// 30 s fast does not send it early, one 30 s slow does not hold it back.
func TestSkewedNodeReminders(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	fast, slow := rb.node(t, clockSkew, negotiation.Pace{}), rb.node(t, -clockSkew, negotiation.Pace{})
	sweeper := func(n *Rooms) *Notifications {
		svc, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: n.river, Rooms: n,
			UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: n.baseURL})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	ta, tb := rb.openOn(t, slow, rb.dbNow(t).Add(time.Hour).Truncate(time.Second))
	if _, err := slow.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	cv, _, err := slow.RequestConfirmation(rb.ctx, rb.b, tb, "reject", "")
	if err != nil {
		t.Fatal(err)
	}
	// Its next reminder 10 s ahead by the database: the fast node's clock
	// is past it.
	remindIn := func(d time.Duration) time.Time {
		t.Helper()
		var at time.Time
		if err := rb.pool.QueryRow(rb.ctx, `UPDATE confirmations SET remind_at = statement_timestamp() + $2::interval
			WHERE id = $1 RETURNING remind_at`, cv.ID, d.String()).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	remindIn(clockSkew / 3)
	if n, err := sweeper(fast).RemindDue(rb.ctx, 10); err != nil || n != 0 {
		t.Errorf("fast node's sweep found %d reminders due (%v), want none: the database's clock has not reached it", n, err)
	}
	// Due a second ahead; once the database passed it, the slow node's
	// clock is still 29 s before it.
	rb.waitPast(t, remindIn(time.Second))
	if n, err := sweeper(slow).RemindDue(rb.ctx, 10); err != nil || n != 1 {
		t.Errorf("slow node's sweep found %d reminders due (%v), want 1", n, err)
	}
}

// TestSkewedNodeWaitsOutCooldown: a waiting read that a change wakes while
// the side's counter is still held back by a cool-down ending within the
// wait waits the cool-down out (ReadWait), on a node 30 s fast or slow as
// on one whose clock is right: the cool-down's end is the database's
// moment, and how long is left of it is counted on the same clock. (The
// nodes do not listen: their waits look again every second.)
func TestSkewedNodeWaitsOutCooldown(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	pace := negotiation.Pace{Cooldown: 12 * time.Second} // within MaxWait
	for _, off := range []time.Duration{0, clockSkew, -clockSkew} {
		n := rb.node(t, off, pace)
		ta, tb := rb.openOn(t, n, rb.dbNow(t).Add(time.Hour).Truncate(time.Second))
		if _, err := n.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
			t.Fatal(err)
		}
		if _, err := n.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(11, "")}); err != nil {
			t.Fatal(err)
		}
		type answer struct {
			v   *View
			err error
		}
		done := make(chan answer, 1)
		go func() {
			v, err := n.ReadWait(rb.ctx, rb.b, tb, MaxWait)
			done <- answer{v, err}
		}()
		for waits := false; !waits; {
			time.Sleep(time.Millisecond)
			n.waiters.mu.Lock()
			for _, w := range n.waiters.rooms {
				waits = waits || len(w) > 0
			}
			n.waiters.mu.Unlock()
		}
		// a's move gives b the turn while b's counter is held back.
		if _, err := n.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "need_more_detail", Fields: []string{"fee"}}); err != nil {
			t.Fatal(err)
		}
		got := <-done
		if got.err != nil {
			t.Fatal(got.err)
		}
		if got.v.NextCounterAt != "" || !slices.Contains(got.v.Next.Verdicts, negotiation.VerdictCounter) {
			t.Errorf("node %s off: the waiting read answered before b's cool-down ended (next_counter_at %q, verdicts %v), not waiting it out",
				off, got.v.NextCounterAt, got.v.Next.Verdicts)
		}
	}
}
