package app

import (
	"testing"
	"time"
)

// TestSessionReadSaysTheDatabasesMoment: a session's read says the
// database's moment it was read at (SignedIn.At), on the clock its end is
// on, so that a live page's stream ends with the session whatever the
// node's clock says (dashboard: liveSession.left). The stream compared the
// session's end with the node's clock: a node 30 s fast ended it saying
// "signed out" 30 s before the session ended.
func TestSessionReadSaysTheDatabasesMoment(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	fast := NewAccounts(rb.pool)
	fast.now = func() time.Time { return time.Now().Add(clockSkew) }
	token, _, err := fast.StartSession(rb.ctx, rb.a.OwnerUserID, SessionDevice{Browser: "Firefox"})
	if err != nil {
		t.Fatal(err)
	}
	before := rb.dbNow(t)
	in, err := fast.SessionUser(rb.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	after := rb.dbNow(t)
	if !within(in.At, before, after) {
		t.Errorf("a session read on a node %s fast at %s, not at the database's %s–%s", clockSkew, in.At, before, after)
	}
	if left := in.Session.ExpiresAt.Sub(in.At); left <= SessionIdle-time.Second || left > SessionIdle {
		t.Errorf("the session has %s left by the database's clock, want about %s", left, SessionIdle)
	}
}
