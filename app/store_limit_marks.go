package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/taasky/taasky/negotiation"
)

// limitMarksLockClass is the first key of the advisory lock on a pair of
// accounts ("tlmk"): the joins between them take it, one after the other.
const limitMarksLockClass = 0x746c6d6b

// lockPairSQL is a select list's column that takes, for the transaction,
// the lock of the pair of accounts a and b (SQL expressions; class: the
// parameter holding limitMarksLockClass). It reads as ”.
func lockPairSQL(a, b, class string) string {
	return `pg_advisory_xact_lock(` + class + `::int, hashtext(least(` + a + `, ` + b + `)::text || '/' || greatest(` + a + `, ` + b + `)::text))::text`
}

// selectLimitMarks are the marks the joins between accounts lo and hi
// (lo <= hi) kept since since, placed as a room whose opener is account
// opener: Marks[0] is the opener's.
func selectLimitMarks(ctx context.Context, q querier, lo, hi, opener int64, since time.Time) ([]negotiation.NoDealMark, error) {
	rows, err := q.Query(ctx, `SELECT field, mark_lo, mark_hi, told FROM limit_marks
		WHERE account_lo = $1 AND account_hi = $2 AND joined_at >= $3`, lo, hi, since)
	if err != nil {
		return nil, fmt.Errorf("selectLimitMarks: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (negotiation.NoDealMark, error) {
		var m negotiation.NoDealMark
		var mlo, mhi []byte
		err := row.Scan(&m.Key, &mlo, &mhi, &m.Told)
		m.Marks = [2][]byte{mlo, mhi}
		if opener != lo {
			m.Marks = [2][]byte{mhi, mlo}
		}
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectLimitMarks: %w", err)
	}
	return out, nil
}

// insertLimitMarks keeps a join's marks (folded into the room's UPDATE):
// per field its key, the pair's two marks (the smaller account's first)
// and whether its verdict was told.
func insertLimitMarks(lo, hi, roomID int64, fields []string, marksLo, marksHi [][]byte, told []bool, at time.Time) foldedWrite {
	return foldedWrite{sql: `INSERT INTO limit_marks (account_lo, account_hi, room_id, field, mark_lo, mark_hi, told, joined_at)
		SELECT $1, $2, $3, f, l, h, t, $8 FROM unnest($4::text[], $5::bytea[], $6::bytea[], $7::bool[]) AS m(f, l, h, t)`,
		args: []any{lo, hi, roomID, fields, marksLo, marksHi, told, at}}
}

// purgeLimitMarks deletes at most limit marks kept before now less kept,
// the oldest first, through their index, and says how many. A mark a join
// may still read (one kept since the database's moment less kept) stays,
// whatever now says: the cutoff is the earlier of now's and the
// database's clock's, so a purger whose clock runs ahead does not take
// marks early.
func purgeLimitMarks(ctx context.Context, q querier, now time.Time, kept time.Duration, limit int) (int, error) {
	tag, err := q.Exec(ctx, `DELETE FROM limit_marks m USING (SELECT account_lo, account_hi, room_id, field FROM limit_marks
		WHERE joined_at < least($1::timestamptz, statement_timestamp()) - make_interval(secs => $3) ORDER BY joined_at LIMIT $2) old
		WHERE m.account_lo = old.account_lo AND m.account_hi = old.account_hi AND m.room_id = old.room_id AND m.field = old.field`, now, limit, kept.Seconds())
	if err != nil {
		return 0, fmt.Errorf("purgeLimitMarks: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
