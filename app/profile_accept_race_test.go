package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
	side, err := pgxpool.New(tb.ctx, tb.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer side.Close()
	hold, err := side.Begin(tb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.WithoutCancel(tb.ctx)) //nolint:errcheck
	if _, err := hold.Exec(tb.ctx, `LOCK TABLE room_notes IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	waits := func() int {
		n, err := pgtest.LockWaits(tb.ctx, side)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	erased := make(chan error, 1)
	go func() { erased <- tb.accounts.DeleteProfile(tb.ctx, pat.ID, pat.Email) }()
	for end := time.Now().Add(10 * time.Second); waits() < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the erasure does not wait for the held table")
		}
	}
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
	for end := time.Now().Add(10 * time.Second); len(joined) == 0 && waits() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the join neither done nor waiting")
		}
	}
	if err := hold.Rollback(tb.ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-erased; err != nil {
		t.Fatalf("the erasure: %v", err)
	}
	err = <-joined
	if err == nil || app.ErrorCodeOf(err) == app.ErrInternal {
		t.Fatalf("%s beside the erasure, which deleted Pat first: %v", how, err)
	}
}
