package app

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/negotiation"
)

// TestRetentionPurgesCapCounts: the caps' counts (the invitation mails of
// an account, room invitations' and invitations to join, and the people's
// sign-ups) count for 24 hours; an invitation or a sign-up forgot the old
// ones of its own account or of everyone, but an account that invites no
// more kept its counts for good, and an installation without a cap on
// invitations to join (INVITE_EMAIL_DAILY_CAP=0) kept a count of every
// mail, read by nothing. The purge, run by River's purge job, deletes the
// counts older than a day (and an hour), and keeps the recent ones the
// cap still counts: past the cap an open is still refused.
func TestRetentionPurgesCapCounts(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	if err := rb.acc.UseTeams(TeamsConfig{River: rb.rooms.river, SealKey: bytes.Repeat([]byte{4}, 32), BaseURL: rb.cfg.BaseURL,
		SignupDailyCap: 0, InviteDailyCap: 0, Now: rb.cfg.Now, RoomTokenKey: rb.cfg.TokenKey}); err != nil {
		t.Fatal(err)
	}
	rb.rooms.inviteCap = 3
	count := func(table string) int {
		t.Helper()
		var n int
		if err := rb.pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Day 0: alpha's owner invites three people to join (no cap) and mails
	// one of them again twice; its agent has two invitations to rooms
	// emailed; the owner signs up an account of their own.
	owner := rb.a.OwnerUserID
	var again int64
	for _, to := range []string{"kim@example.test", "lee@example.test", "max@example.test"} {
		inv, err := rb.acc.Invite(ctx, owner, "alpha", to, MemberRoleMember)
		if err != nil {
			t.Fatal(err)
		}
		again = inv.ID
	}
	for range 2 {
		if err := rb.acc.ResendInvitation(ctx, owner, "alpha", again); err != nil {
			t.Fatal(err)
		}
	}
	for _, to := range []string{"pat@example.test", "sam@example.test"} {
		if _, err := rb.openInviting(to); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rb.pool.Exec(ctx, `UPDATE users SET email_verified = true WHERE id = $1`, owner); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.acc.SignUp(ctx, owner, "Gamma", "gamma"); err != nil {
		t.Fatal(err)
	}
	// 23 hours later, one more invitation to a room, which the cap counts
	// for another day.
	rb.advance(23 * time.Hour)
	if _, err := rb.openInviting("ray@example.test"); err != nil {
		t.Fatal(err)
	}
	// Day 1, 26 hours after the first: alpha invites no more for now.
	rb.advance(3 * time.Hour)
	before := map[string]int{}
	for _, table := range []string{"member_invite_emails", "invite_emails", "signups"} {
		before[table] = count(table)
	}
	// Their mails went (the purge's River client works no mail).
	if _, err := rb.pool.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE kind IN ('member_invite', 'notify_invite')`); err != nil {
		t.Fatal(err)
	}
	deleted := &sync.Map{}
	rc := purgeClient(t, rb, countingData{NewRetention(rb.pool, testPeriods), deleted}, rb.cfg.Now)
	runPurge(t, ctx, rc)
	if err := rc.Stop(ctx); err != nil { // it works no mail
		t.Fatal(err)
	}
	after := map[string]int{}
	for _, table := range []string{"member_invite_emails", "invite_emails", "signups"} {
		after[table] = count(table)
	}
	if after["member_invite_emails"] != 0 || after["invite_emails"] != 1 || after["signups"] != 0 {
		t.Errorf("the caps' counts after the purge, 26 hours on: %v (before it: %v); want none older than a day: "+
			"map[invite_emails:1 member_invite_emails:0 signups:0]", after, before)
	}
	if n, _ := deleted.Load("signups"); n != 1 {
		t.Errorf("the purge says it deleted %v sign-ups; want 1", n)
	}

	// The recent count still counts: two more invitations, then refused.
	for _, to := range []string{"ada@example.test", "bo@example.test"} {
		if _, err := rb.openInviting(to); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rb.openInviting("cy@example.test"); ErrorCodeOf(err) != ErrConflict {
		t.Errorf("a fourth invitation emailed within 24 hours, after the purge: %v; want refused by the cap", err)
	}
	rb.checkClean(t)
}

// TestRetentionKeepsUpWithLimitMarks: the marks of limits go 30 days after
// their join. The purge deleted at most 100,000 an hour (50 statements),
// whatever its budget: 28 marks a second, which one machine's joins pass
// with two shared fields each (the bench agrees 22 rooms a second on two
// cores), and then the marks older than 30 days piled up without end.
// More than that, aged out, is deleted by one purge now (within its
// budget: a clock that never reaches its end here), and the marks of the
// last 30 days stay.
func TestRetentionKeepsUpWithLimitMarks(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	at := rb.cfg.Now()
	lo, hi := min(rb.a.AccountID, rb.b.AccountID), max(rb.a.AccountID, rb.b.AccountID)
	if _, err := rb.pool.Exec(ctx, `INSERT INTO limit_marks (account_lo, account_hi, room_id, field, mark_lo, mark_hi, told, joined_at)
		SELECT $1, $2, i / 2, CASE WHEN i % 2 = 0 THEN 'fee' ELSE 'when' END, sha256(int8send(i)), sha256(int8send(-i)), true,
			CASE WHEN i <= 110000 THEN $3::timestamptz - interval '31 days' ELSE $3::timestamptz - interval '29 days' END
			+ make_interval(secs => i / 100.0)
		FROM generate_series(1, 110010) i`, lo, hi, at); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.pool.Exec(ctx, `ANALYZE limit_marks`); err != nil { // autovacuum's, in production
		t.Fatal(err)
	}
	ret := NewRetention(rb.pool, testPeriods)
	ret.clock = func() time.Time { return time.Time{} } // the budget never runs out
	deleted := &sync.Map{}
	rc := purgeClient(t, rb, countingData{ret, deleted}, rb.cfg.Now)
	runPurge(t, ctx, rc)
	var old, kept int
	if err := rb.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE joined_at < $1), count(*) FILTER (WHERE joined_at >= $1) FROM limit_marks`,
		at.Add(-negotiation.NoDealMarksKept)).Scan(&old, &kept); err != nil {
		t.Fatal(err)
	}
	n, _ := deleted.Load("limit_marks")
	if old != 0 || kept != 10 || n != 110000 {
		t.Errorf("after one purge: %d marks older than 30 days left, %d younger kept, %v deleted; want none, 10, 110000", old, kept, n)
	}
}

// TestRetentionCapCountsNeverWait: the caps' counts an invitation's own
// forgetting (or an account's deletion) holds are skipped by the purge,
// which neither waits for them (it would hold up the hourly purge behind
// a stuck transaction, or deadlock) nor loses them: the next purge,
// the rows no longer held, deletes them.
func TestRetentionCapCountsNeverWait(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	now := rb.cfg.Now()
	old := now.Add(-capCountsKept - time.Hour)
	insert := func(acct int64) {
		t.Helper()
		if _, err := rb.pool.Exec(ctx, `WITH x AS (INSERT INTO invite_emails (account_id, created_at, room_id) VALUES ($1, $2, 1), ($1, $2, 2))
			INSERT INTO member_invite_emails (account_id, created_at, invitation_id) VALUES ($1, $2, 1), ($1, $2, 2)`, acct, old); err != nil {
			t.Fatal(err)
		}
	}
	left := func(acct int64) int {
		t.Helper()
		var n int
		if err := rb.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM invite_emails WHERE account_id = $1) +
			(SELECT count(*) FROM member_invite_emails WHERE account_id = $1)`, acct).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ret := NewRetention(rb.pool, testPeriods)
	for _, hold := range []string{
		`WITH x AS (DELETE FROM invite_emails WHERE account_id = $1) DELETE FROM member_invite_emails WHERE account_id = $1`, // an invitation's forgetting
		`DELETE FROM accounts WHERE id = $1`, // the account's deletion
	} {
		insert(rb.a.AccountID)
		insert(rb.b.AccountID)
		h := pgtest.HoldLock(t, rb.pool, hold, rb.a.AccountID)
		c, cancel := context.WithTimeout(ctx, 20*time.Second) // a wait fails the purge
		out, err := ret.PurgeOld(c, now, now.Add(time.Minute))
		cancel()
		if err != nil || out["invite_counts"] != 4 || left(rb.a.AccountID) != 4 || left(rb.b.AccountID) != 0 {
			t.Errorf("held by %q: the purge said %v, %v, and left %d counts of the held account, %d of the other; want 4 deleted, 4 and 0 left",
				hold, out, err, left(rb.a.AccountID), left(rb.b.AccountID))
		}
		h.Release()
		if out, err := ret.PurgeOld(ctx, now, now.Add(time.Minute)); err != nil || left(rb.a.AccountID) != 0 {
			t.Errorf("released %q: the next purge said %v, %v, and left %d counts; want none", hold, out, err, left(rb.a.AccountID))
		}
	}
}
