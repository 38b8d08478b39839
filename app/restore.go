package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// RestoreIDsPerSecond bounds how many ids one sequence can have handed out
// each second between the backup point and the restore (an order above
// what an installation measures: a few hundred moves a second on 2 cores,
// docs/performance.md), and RestoreMinSkip is the least skip: together
// they are how far MovePastBackup moves every sequence.
const (
	RestoreIDsPerSecond = 10_000
	RestoreMinSkip      = 1_000_000
)

// Restore is what MovePastBackup did. Zero Skip: nothing (the database is
// the one the installation ran on).
type Restore struct {
	// Identity is the database's (databaseIdentity), Was the one recorded
	// before ("" when none was).
	Identity, Was string
	// BackupPoint is the newest moment the restored data holds.
	BackupPoint time.Time
	// Skip is how far each of Sequences sequences moved.
	Skip      int64
	Sequences int
	// Sessions is how many sessions ended.
	Sessions int64
	// AskedAgain is how many pending confirmations were asked again.
	AskedAgain int
}

// MovePastBackup makes a database restored from a backup safe to serve
// before any process serves it: the lost time after the backup handed out
// ids (rooms, whose id is their receipt's; accounts, agents, users,
// webhook endpoints, River's jobs) that must never be handed out again for
// something else, so every sequence skips ahead of anything that time can
// have reached (RestoreIDsPerSecond for each second from the backup point
// to now, RestoreMinSkip at least); and every session ends (a sign-out, a
// removal or a "sign out everywhere" after the backup point is lost: the
// sessions it ended would be live again).
//
// It does so when force is set (an operator's `taasky after-restore`, for
// a backup restored in place: point-in-time recovery) or when the database
// is not the one the installation recorded (a pg_restore into a new
// database, a snapshot restored as a new server); it records the database
// otherwise. serve and dev call it as they start, before they work a job
// or answer a request; the first of several processes does it, the others
// wait for its row lock and find it done.
//
// given, when not zero, is the backup's moment as the operator knows it
// (a recovery target): the earlier of it and the newest moment in the data
// counts, so a process that served the restored data before this ran
// cannot shorten the skip.
//
// With n, every pending confirmation's request is queued again (n's email
// and push, as at its request, with a fresh one-tap link): an answer given
// after the backup point was lost with it, and its human, who believes they
// answered, would hear nothing until the reminder a day before the
// deadline. A restore that n cannot queue for (no River client) asks none.
func MovePastBackup(ctx context.Context, pool *pgxpool.Pool, now time.Time, force bool, given time.Time, n *Notifications) (Restore, error) {
	var r Restore
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		if r.Was, r.Identity, err = lockedIdentities(ctx, tx); err != nil {
			return err
		}
		if !force && (r.Was == "" || sameDatabase(r.Was, r.Identity)) {
			if r.Was != r.Identity { // the first start, or a system identifier known now
				return recordDatabaseIdentity(ctx, tx, r.Identity, nil, nil)
			}
			return nil
		}
		if r.BackupPoint, err = selectBackupPoint(ctx, tx); err != nil {
			return err
		}
		if !given.IsZero() && (r.BackupPoint.IsZero() || given.Before(r.BackupPoint)) {
			r.BackupPoint = given
		}
		r.Skip = restoreSkip(r.BackupPoint, now)
		if r.Sequences, err = skipSequences(ctx, tx, r.Skip); err != nil {
			return err
		}
		if r.Sessions, err = deleteEverySession(ctx, tx); err != nil {
			return err
		}
		if n != nil {
			if r.AskedAgain, err = n.askAgain(ctx, tx, now); err != nil {
				return err
			}
		}
		return recordDatabaseIdentity(ctx, tx, r.Identity, &r.BackupPoint, &now)
	})
	if err != nil {
		return Restore{}, fmt.Errorf("moving past the backup point: %w", err)
	}
	return r, nil
}

// restoreSkip is how far each sequence moves: RestoreIDsPerSecond for each
// second (begun) from the backup point to now, RestoreMinSkip at least. A
// database with no moment (nothing in it) moves RestoreMinSkip.
func restoreSkip(backupPoint, now time.Time) int64 {
	skip := int64(RestoreMinSkip)
	if !backupPoint.IsZero() && now.After(backupPoint) {
		secs := int64(now.Sub(backupPoint)/time.Second) + 1
		if s := secs * RestoreIDsPerSecond; s > skip {
			skip = s
		}
	}
	return skip
}

// ReceiptOnRecord says whether jws, a receipt that verifies with this
// service's keys, is the one this database keeps for room roomID. One that
// is not was signed with the same keys by a database this one does not
// descend from up to then: after a restore from a backup (backupPoint, nil
// when this database was never restored), a receipt issued after the
// backup point, whose room may since have been agreed on other terms or
// still be open. /verify says so beside "valid".
func (s *Rooms) ReceiptOnRecord(ctx context.Context, roomID int64, jws string) (kept bool, backupPoint *time.Time, err error) {
	stored, ok, err := selectReceipt(ctx, s.pool, roomID)
	if err != nil {
		return false, nil, err
	}
	if ok && stored == jws {
		return true, nil, nil
	}
	backupPoint, _, err = selectRestore(ctx, s.pool)
	return false, backupPoint, err
}

// sameDatabase compares two database identities (databaseIdentity): the
// oids must match, and the system identifiers where both are known.
func sameDatabase(a, b string) bool {
	sa, oa, _ := strings.Cut(a, "/")
	sb, ob, _ := strings.Cut(b, "/")
	return oa == ob && (sa == sb || sa == "-" || sb == "-")
}

// askAgain queues, in tx, the request of every pending confirmation again
// to whom answers it (a notice of its own: Again), and returns how many
// confirmations it asked.
func (n *Notifications) askAgain(ctx context.Context, tx pgx.Tx, now time.Time) (int, error) {
	pending, err := selectPendingRequests(ctx, tx)
	if err != nil {
		return 0, err
	}
	var notices []jobs.Notice
	asked := 0
	for _, p := range pending {
		if len(p.users) == 0 {
			continue
		}
		asked++
		for _, user := range p.users {
			notices = append(notices, jobs.Notice{Topic: jobs.TopicRequest, RoomID: p.roomID, Side: negotiation.Side(p.side),
				UserID: user, ConfirmationID: p.id, Again: now.UnixNano()})
		}
	}
	return asked, enqueueNotices(ctx, tx, nil, n.river, now, notices, nil, "")
}

// lockedIdentities locks the installation's recorded database identity
// (until tx ends: the first of several processes starting at once decides)
// and returns it with the identity of the database tx is on.
func lockedIdentities(ctx context.Context, tx pgx.Tx) (was, is string, err error) {
	if was, err = lockDatabaseIdentity(ctx, tx); err != nil {
		return "", "", err
	}
	is, err = databaseIdentity(ctx, tx)
	return was, is, err
}

// KeepDatabase records the database this connection is on as the one the
// installation runs on, moving past nothing: for an operator who knows
// nothing was lost (`taasky after-move`): a pg_upgrade to a new major
// version keeps the database's oid and data but gives the cluster a new
// system identifier, as a new server holding a restored dump has, and so
// would be taken for a restore by the next start (every session ended,
// every pending confirmation asked again). It returns the identity
// recorded (Identity) and the one before (Was); Skip stays zero.
func KeepDatabase(ctx context.Context, pool *pgxpool.Pool) (Restore, error) {
	var r Restore
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		if r.Was, r.Identity, err = lockedIdentities(ctx, tx); err != nil {
			return err
		}
		if r.Was == r.Identity {
			return nil
		}
		return recordDatabaseIdentity(ctx, tx, r.Identity, nil, nil)
	})
	if err != nil {
		return Restore{}, fmt.Errorf("recording the database: %w", err)
	}
	return r, nil
}
