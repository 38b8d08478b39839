package app_test

import (
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestJoinWhileTheProfileIsDeleted: Pat, in no account, presses Join on
// an invitation (or creates an account) in one tab while deleting their
// profile in another. The join read Pat as there and added the
// membership, which waited for the erasure's lock on Pat's row and then
// failed on the row gone: an internal error. Now both read Pat's row
// locked: they come first (and the erasure is refused: Pat is a member)
// or after (and are told Pat is gone). A test transaction holds the
// erasure after it deleted the row (a table it writes next), so the join
// comes in that window.
func TestJoinWhileTheProfileIsDeleted(t *testing.T) {
	for _, how := range []string{"join", "sign up"} {
		t.Run(how, func(t *testing.T) { joinWhileTheProfileIsDeleted(t, how) })
	}
}

func joinWhileTheProfileIsDeleted(t *testing.T, how string) {
	tb, ann, _, _, _ := lifeTeam(t)
	pat := tb.person("pat@example.test", true)
	if _, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", pat.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	link, _ := tb.lastInviteLink()
	hold := pgtest.HoldLock(t, tb.pool, `LOCK TABLE room_notes IN SHARE MODE`)
	erased := make(chan error, 1)
	go func() { erased <- tb.accounts.DeleteProfile(tb.ctx, pat.ID, pat.Email) }()
	hold.WaitFor(1, "the erasure does not wait for the held table")
	joined := make(chan error, 1)
	go func() {
		var err error
		if how == "join" {
			_, err = tb.accounts.AcceptInvitation(tb.ctx, pat.ID, link)
		} else {
			_, err = tb.accounts.SignUp(tb.ctx, pat.ID, "Pat's", "pats")
		}
		joined <- err
	}()
	hold.WaitForOr(2, func() bool { return len(joined) > 0 }, "the join neither done nor waiting")
	hold.Release()
	if err := <-erased; err != nil {
		t.Fatalf("the erasure: %v", err)
	}
	err := <-joined
	if err == nil || app.ErrorCodeOf(err) == app.ErrInternal {
		t.Fatalf("%s beside the erasure, which deleted Pat first: %v", how, err)
	}
}

// TestSignUpSentTwiceAtOnce: the sign-up form sent twice at once (a double
// click) is answered, both times, with the one account it made. Each
// sign-up read the person's row FOR KEY SHARE and then locked it FOR
// UPDATE (selectJustSignedUp): two at once each held the share the
// other's FOR UPDATE waited for, and PostgreSQL ended one as a deadlock,
// an internal error. A test transaction holds the row (FOR NO KEY UPDATE,
// which the share does not wait for), so that both sign-ups read it
// before either locks it, whatever the timing.
func TestSignUpSentTwiceAtOnce(t *testing.T) {
	tb := setupTeams(t, 2, 0)
	sue := tb.person("sue@example.test", true)
	hold := pgtest.HoldLock(t, tb.pool, `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, sue.ID)
	type signedUp struct {
		acct app.Account
		err  error
	}
	out := make(chan signedUp, 2)
	for range 2 {
		go func() {
			acct, err := tb.accounts.SignUp(tb.ctx, sue.ID, "Sue's", "sues")
			out <- signedUp{acct, err}
		}()
	}
	hold.WaitFor(2, "the sign-ups") // both wait for the held row
	hold.Release()
	first, second := <-out, <-out
	if first.err != nil || second.err != nil || first.acct.ID != second.acct.ID {
		t.Fatalf("the sign-up sent twice at once: %+v %v; %+v %v; want one account, twice", first.acct, first.err, second.acct, second.err)
	}
}
