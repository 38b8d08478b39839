package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pipeTx is a read-write transaction that spares a move two round trips:
// its BEGIN goes to PostgreSQL with its first statement (the room's read),
// and the writes a change sends last (hold) go with its COMMIT. What it
// runs, and in which order, is what pgx.BeginFunc would run; only the
// messages are grouped. A statement sent after held writes sends them
// first. It implements pgx.Tx for the statements of a move and River's
// transactional insert; it has no nested transactions.
type pipeTx struct {
	conn   *pgxpool.Conn
	begun  bool       // BEGIN was sent
	held   *pgx.Batch // writes to send before anything else, or with COMMIT
	closed bool
}

var errNoNested = errors.New("pipeTx: no nested transactions")

// hold keeps writes to send in front of the next statement, or with the
// COMMIT; their errors are that statement's or the COMMIT's.
func (t *pipeTx) hold(b *pgx.Batch) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	if t.held == nil {
		t.held = &pgx.Batch{}
	}
	t.held.QueuedQueries = append(t.held.QueuedQueries, b.QueuedQueries...)
	return nil
}

// sendBatch sends b behind BEGIN, the first time, and the held writes, in
// one round trip, and returns the results positioned at b's first
// statement.
func (t *pipeTx) sendBatch(ctx context.Context, b *pgx.Batch) (pgx.BatchResults, error) {
	if t.closed {
		return nil, pgx.ErrTxClosed
	}
	nb, skip := t.front()
	nb.QueuedQueries = append(nb.QueuedQueries, b.QueuedQueries...)
	br := t.conn.SendBatch(ctx, nb)
	for range skip {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	return br, nil
}

// front is what must go before the next statement: BEGIN if it was not
// sent, and the held writes; skip counts them.
func (t *pipeTx) front() (b *pgx.Batch, skip int) {
	b = &pgx.Batch{}
	if !t.begun {
		b.Queue("begin")
		t.begun = true
	}
	if t.held != nil {
		b.QueuedQueries = append(b.QueuedQueries, t.held.QueuedQueries...)
		t.held = nil
	}
	return b, len(b.QueuedQueries)
}

// send sends a batch of one statement (sendBatch).
func (t *pipeTx) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	return t.sendBatch(ctx, b)
}

func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.begun && t.held == nil && !t.closed {
		return t.conn.Exec(ctx, sql, args...)
	}
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (t *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.begun && t.held == nil && !t.closed {
		return t.conn.Query(ctx, sql, args...)
	}
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := t.Query(ctx, sql, args...)
	return &firstRow{rows: rows, err: err}
}

func (t *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	br, err := t.sendBatch(ctx, b)
	if err != nil {
		return failedBatch{err}
	}
	return br
}

func (t *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if t.closed {
		return 0, pgx.ErrTxClosed
	}
	if b, skip := t.front(); skip > 0 {
		if err := t.conn.SendBatch(ctx, b).Close(); err != nil {
			return 0, err
		}
	}
	return t.conn.CopyFrom(ctx, table, cols, src)
}

func (t *pipeTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Conn().Prepare(ctx, name, sql)
}

func (t *pipeTx) Begin(context.Context) (pgx.Tx, error) { return nil, errNoNested }
func (t *pipeTx) LargeObjects() pgx.LargeObjects        { return pgx.LargeObjects{} }
func (t *pipeTx) Conn() *pgx.Conn                       { return t.conn.Conn() }

// Commit sends the held writes and COMMIT in one round trip.
func (t *pipeTx) Commit(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	if !t.begun && t.held == nil {
		t.closed = true
		return nil // nothing was sent
	}
	b, _ := t.front()
	b.Queue("commit")
	br := t.conn.SendBatch(ctx, b)
	var tag pgconn.CommandTag
	var err error
	for range b.QueuedQueries {
		if tag, err = br.Exec(); err != nil {
			break
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	t.closed = true
	switch {
	case err != nil:
		if !t.conn.Conn().IsClosed() {
			_, _ = t.conn.Exec(ctx, "rollback")
		}
		return err
	case tag.String() == "ROLLBACK": // the transaction had failed before
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// Rollback drops the held writes and ends the transaction.
func (t *pipeTx) Rollback(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed, t.held = true, nil
	if !t.begun {
		return nil
	}
	if _, err := t.conn.Exec(ctx, "rollback"); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// batchRows are a statement's rows read from a batch, which closes with
// them.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r *batchRows) Close() {
	r.Rows.Close()
	_ = r.br.Close()
}

// firstRow is QueryRow's answer from Query's, as pgx's own: the first row
// scanned, pgx.ErrNoRows when there is none.
type firstRow struct {
	rows pgx.Rows
	err  error
}

func (r *firstRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}

// failedBatch answers every result of a batch that could not be sent with
// why.
type failedBatch struct{ err error }

func (f failedBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, f.err }
func (f failedBatch) Query() (pgx.Rows, error)         { return nil, f.err }
func (f failedBatch) QueryRow() pgx.Row                { return &firstRow{err: f.err} }
func (f failedBatch) Close() error                     { return f.err }
func (f failedBatch) Tx() pgx.Tx                       { return nil }
