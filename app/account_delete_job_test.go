package app

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// deleteClient is a River client working the accounts' deletion jobs
// alone, on the bundle's database.
func deleteClient(t *testing.T, rb *roomsBundle) *river.Client[pgx.Tx] {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.AccountDeleteWorker{Accounts: rb.rooms})
	rc, err := river.NewClient(riverpgxv5.New(rb.pool), &river.Config{Workers: workers, FetchOnlyKnownKinds: true,
		Queues: jobs.Queues(2, 1), FetchCooldown: jobs.FetchCooldown, FetchPollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(rb.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Stop(context.Background()) })
	return rc
}

// openAlphaRooms opens n rooms by alpha that beta joined; it returns
// beta's tokens.
func (rb *roomsBundle) openAlphaRooms(t testing.TB, n int) []string {
	t.Helper()
	out := make([]string, n)
	for i := range out {
		open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
		if err != nil {
			t.Fatal(err)
		}
		j, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = j.RoomToken
	}
	return out
}

func (rb *roomsBundle) countOpen(t *testing.T, accountID int64) int {
	t.Helper()
	n, err := countOpenAccountRooms(rb.ctx, rb.pool, accountID)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDeleteAccountInTheBackground: the owner's deletion returns once it
// is committed, its rooms still open: from then on alpha's keys are
// refused, its member is told it is being deleted (and may do nothing in
// it), its invitation no longer joins, nothing new is made in it. A second
// deletion is harmless (no second job). A job killed after closing some
// rooms, run again by River, closes the rest (beta is told of each, with
// the reason account_deleted) and erases alpha; running it once more
// does nothing.
func TestDeleteAccountInTheBackground(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx, acc := rb.ctx, rb.acc
	if err := acc.AddMemberAsOperator(ctx, "alpha", "mem@example.test", MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	owner, err := acc.UserByEmail(ctx, "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	mem, err := acc.UserByEmail(ctx, "mem@example.test")
	if err != nil {
		t.Fatal(err)
	}
	betaOwner, err := acc.UserByEmail(ctx, "beta@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.UseTeams(TeamsConfig{River: rb.cfg.River, SealKey: make([]byte, 32), BaseURL: rb.cfg.BaseURL, RoomTokenKey: rb.cfg.TokenKey}); err != nil {
		t.Fatal(err)
	}
	inv, err := acc.Invite(ctx, owner.ID, "alpha", "new@example.test", MemberRoleMember)
	if err != nil {
		t.Fatal(err)
	}
	key, err := acc.IssueAgentKey(ctx, "alpha", rb.a.ID)
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	tokens := rb.openAlphaRooms(t, n)
	var lastJob int64
	if err := rb.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM river_job`).Scan(&lastJob); err != nil {
		t.Fatal(err)
	}

	got, err := rb.rooms.DeleteAccount(ctx, owner.ID, "alpha", "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Pending || got.Again || got.KeysRevoked == 0 || got.RoomsClosed != 0 || got.ActorErased != true {
		t.Fatalf("the request: %+v", got)
	}
	if open := rb.countOpen(t, rb.a.AccountID); open != n {
		t.Fatalf("when the request returned, %d of the %d rooms were open (the job closes them)", open, n)
	}
	if _, err := acc.AuthenticateAgentKey(ctx, key.Key); ErrorCodeOf(err) != ErrUnauthorized {
		t.Fatalf("alpha's key while it is being deleted: %v", err)
	}
	const deleting = "account: ALPHA is being deleted; its open rooms are being closed, and nothing more can be done in it"
	if _, err := acc.Membership(ctx, mem.ID, "alpha"); ErrorMessageOf(err) != deleting {
		t.Fatalf("the member's membership: %v", err)
	}
	if names, err := acc.DeletingAccounts(ctx, mem.ID); err != nil || len(names) != 1 || names[0] != "ALPHA" {
		t.Fatalf("the member is told: %v %v", names, err)
	}
	if ms, err := acc.Memberships(ctx, mem.ID); err != nil || len(ms) != 0 {
		t.Fatalf("the member's memberships: %+v %v", ms, err)
	}
	if _, _, err := acc.CreateAgent(ctx, "alpha", "Late", "alpha@example.test"); ErrorMessageOf(err) != deleting {
		t.Fatalf("an agent made in it: %v", err)
	}
	if _, err := acc.IssueAgentKey(ctx, "alpha", rb.a.ID); ErrorMessageOf(err) != deleting {
		t.Fatalf("a key issued in it: %v", err)
	}
	var revoked bool
	if err := rb.pool.QueryRow(ctx, `SELECT revoked_at IS NOT NULL FROM account_invitations WHERE id = $1`, inv.ID).Scan(&revoked); err != nil || !revoked {
		t.Fatalf("the invitation waiting: revoked %v (%v)", revoked, err)
	}

	again, err := rb.rooms.DeleteAccount(ctx, owner.ID, "alpha", "alpha")
	if err != nil || !again.Again || again.KeysRevoked != 0 {
		t.Fatalf("a second deletion: %+v %v", again, err)
	}
	var jobsQueued int
	if err := rb.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'account_delete'`).Scan(&jobsQueued); err != nil || jobsQueued != 1 {
		t.Fatalf("%d deletion jobs (%v)", jobsQueued, err)
	}

	// A run killed after its first 10 rooms (each closed whole).
	if closed, more, err := rb.rooms.closeAccountRoomsBatch(ctx, rb.a.AccountID, 10); err != nil || closed != 10 || !more {
		t.Fatalf("the killed run: %d closed, more %v, %v", closed, more, err)
	}
	if open := rb.countOpen(t, rb.a.AccountID); open != n-10 {
		t.Fatalf("%d rooms open after the killed run", open)
	}
	deleteClient(t, rb)
	for i := 0; ; i++ {
		var state string
		if err := rb.pool.QueryRow(ctx, `SELECT state FROM river_job WHERE kind = 'account_delete'`).Scan(&state); err != nil {
			t.Fatal(err)
		} else if state == "completed" {
			break
		}
		if i == 400 {
			t.Fatalf("the deletion's job did not finish in 20 s (%s)", state)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var left int
	if err := rb.pool.QueryRow(ctx, `SELECT count(*) FROM accounts WHERE id = $1`, rb.a.AccountID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("alpha is still there (%d, %v)", left, err)
	}
	for _, tok := range tokens {
		v, err := rb.rooms.Read(ctx, rb.b, tok)
		if err != nil || v.State != negotiation.StateClosed || v.ClosedReason != negotiation.ClosedAccountDeleted {
			t.Fatalf("a room, as beta reads it: %s %s %v", v.State, v.ClosedReason, err)
		}
	}
	var toldBeta, toldAlpha int
	if err := rb.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE (args->>'user_id')::bigint = $2),
		count(*) FILTER (WHERE (args->>'user_id')::bigint <> $2)
		FROM river_job WHERE id > $1 AND args->>'topic' = 'closed'`, lastJob, betaOwner.ID).Scan(&toldBeta, &toldAlpha); err != nil {
		t.Fatal(err)
	}
	if toldBeta != n || toldAlpha != 0 {
		t.Fatalf("closed notices: %d to beta's human, %d to alpha's people (want %d and 0)", toldBeta, toldAlpha, n)
	}
	for _, email := range []string{"alpha@example.test", "mem@example.test"} {
		if _, err := acc.UserByEmail(ctx, email); ErrorCodeOf(err) != ErrNotFound {
			t.Errorf("%s was not erased: %v", email, err)
		}
	}
	// Late, or twice: nothing left to do.
	if done, err := rb.rooms.FinishAccountDeletion(ctx, rb.a.AccountID, time.Now().Add(time.Minute)); !done || err != nil {
		t.Fatalf("the job once more: %v %v", done, err)
	}
	rb.checkClean(t)
}

var deleteRooms = flag.Int("lv17.rooms", 0, "TestDeleteAccountRequestTime: how many open rooms the deleted account has (0: skip)")

// TestDeleteAccountRequestTime logs how long the owner's deletion request
// takes with -lv17.rooms open rooms (a measurement, not a check).
func TestDeleteAccountRequestTime(t *testing.T) {
	if *deleteRooms == 0 {
		t.Skip("-lv17.rooms=N measures the request at N open rooms")
	}
	rb := setupRooms(t)
	owner, err := rb.acc.UserByEmail(rb.ctx, "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	rb.openAlphaRooms(t, *deleteRooms)
	began := time.Now()
	got, err := rb.rooms.DeleteAccount(rb.ctx, owner.ID, "alpha", "alpha")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the deletion request at %d open rooms took %v", *deleteRooms, time.Since(began))
	began = time.Now()
	runs := 0
	for done := false; !done; runs++ {
		if runs == 100 {
			t.Fatal("the job did not finish in 100 runs")
		}
		if done, err = rb.rooms.FinishAccountDeletion(rb.ctx, got.AccountID, time.Now().Add(jobs.AccountDeleteBudget)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("its job's work took %v in %d runs of at most %v", time.Since(began), runs, jobs.AccountDeleteBudget)
}

// TestOperatorFinishesADeletion: an account its owner began deleting
// whose job never ran (no worker, or it failed for good) is finished by
// the operator's `taasky account delete`, which waits: its rooms closed,
// the account gone, the deletion counted as started before.
func TestOperatorFinishesADeletion(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	owner, err := rb.acc.UserByEmail(rb.ctx, "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	rb.openAlphaRooms(t, 3)
	if _, err := rb.rooms.DeleteAccount(rb.ctx, owner.ID, "alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	got, err := rb.rooms.DeleteAccountAsOperator(rb.ctx, "alpha", "alpha")
	if err != nil || !got.Again || got.Pending || got.RoomsClosed != 3 || got.UsersErased != 1 {
		t.Fatalf("the operator's deletion: %+v %v", got, err)
	}
	if _, err := rb.acc.AccountBySlug(rb.ctx, "alpha"); ErrorCodeOf(err) != ErrNotFound || ErrorMessageOf(err) != "account not found: alpha" {
		t.Fatalf("alpha after the operator's deletion: %v", err)
	}
	rb.checkClean(t)
}

// TestPurgeRequeuesAStuckDeletion: a deletion whose job was discarded
// (its last attempt failed) stays "being deleted"; the hourly purge
// queues its job again once it is an hour old, and the job finishes it.
func TestPurgeRequeuesAStuckDeletion(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	owner, err := rb.acc.UserByEmail(rb.ctx, "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	rb.openAlphaRooms(t, 3)
	if _, err := rb.rooms.DeleteAccount(rb.ctx, owner.ID, "alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	ret := NewRetention(rb.pool, RetentionPeriods{})
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.PurgeWorker{Tokens: NewOAuth(rb.pool), Deletions: ret})
	river.AddWorker(workers, &jobs.AccountDeleteWorker{Accounts: rb.rooms})
	rc, err := river.NewClient(riverpgxv5.New(rb.pool), &river.Config{Workers: workers, FetchOnlyKnownKinds: true,
		Queues: jobs.Queues(2, 1), FetchCooldown: jobs.FetchCooldown, FetchPollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	countJobs := func() (n int) {
		t.Helper()
		if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM river_job WHERE kind = 'account_delete' AND state = 'available'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Two hours on, its job discarded.
	if _, err := rb.pool.Exec(rb.ctx, `UPDATE accounts SET deleting_at = deleting_at - interval '2 hours' WHERE id = $1`, rb.a.AccountID); err != nil {
		t.Fatal(err)
	}
	if n, err := ret.AccountsBeingDeleted(rb.ctx, time.Now().Add(-jobs.DeletionRequeueAfter)); err != nil || len(n) != 1 {
		t.Fatalf("accounts being deleted for over an hour: %v %v", n, err)
	}
	if _, err := rb.pool.Exec(rb.ctx, `UPDATE river_job SET state = 'discarded', finalized_at = now() WHERE kind = 'account_delete'`); err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(rb.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Stop(context.Background()) })
	runPurge(t, rb.ctx, rc)
	for i := 0; ; i++ {
		var left int
		if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM accounts WHERE id = $1`, rb.a.AccountID).Scan(&left); err != nil {
			t.Fatal(err)
		} else if left == 0 {
			break
		}
		if i == 400 {
			t.Fatal("the deletion was not finished in 20 s after the purge")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := countJobs(); n != 0 {
		t.Fatalf("%d deletion jobs left queued", n)
	}
	rb.checkClean(t)
}
