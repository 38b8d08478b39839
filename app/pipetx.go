package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pipeTx is a read-write transaction with neither BEGIN nor COMMIT.
// PostgreSQL runs what a connection sends up to a Sync message as one
// implicit transaction (the extended query protocol's pipelining). pipeTx
// sends its statements in pgx's pipeline mode and gets their results with
// a Flush message, which ends nothing; Commit sends the writes it holds
// (hold) with the Sync, which commits them all. So a move is two round
// trips and its own statements only: the seat's locked read, then its
// writes with the Sync.
//
// What ends the transaction otherwise:
//   - a statement that fails: PostgreSQL skips what follows up to the Sync
//     and rolls back there; pipeTx refuses every later statement with that
//     error, and Commit returns it;
//   - Rollback: ROLLBACK, which inside an implicit transaction rolls back
//     what it did, then the Sync;
//   - a connection lost before the Sync (the process killed, the network,
//     a cancelled context, which closes it): nothing is committed.
//
// Statements are prepared once per connection, under pipeTx's own names
// (pgx's statement cache cannot prepare inside a pipeline), and their
// descriptions kept with the connection. The connection's tracer hears of
// each round trip as of a batch. pipeTx implements pgx.Tx for the
// statements of a move and River's transactional insert; it has no nested
// transactions, no COPY and no statements prepared by name.
type pipeTx struct {
	conn   *pgxpool.Conn
	pipe   *pgconn.Pipeline   // started by the first statement
	held   []*pgx.QueuedQuery // writes to send with the next statement or the Sync
	batch  *pipeBatch         // the last batch's results, read to the end before the next statement
	err    error              // the first failure: the transaction rolls back
	closed bool
	eqb    pgx.ExtendedQueryBuilder
}

var (
	errNoNested = errors.New("pipeTx: no nested transactions")
	errNoCopy   = errors.New("pipeTx: no COPY inside a pipeline")
	errNoNamed  = errors.New("pipeTx: no statements prepared by name; send their SQL")
	errSkipped  = errors.New("pipeTx: the transaction failed before this statement")
	errLost     = errors.New("pipeTx: the connection was lost")
)

// lost says whether pgx closed the connection under the transaction: a
// read found it gone (EOF, a reset). pgx then sends Terminate from a
// goroutine of its own, and its Pipeline, which that loss does not close,
// would take a write of ours beside it: a data race, and in pgx v5.12 a
// panic ("BUG: slow write timer already active") when both write at once.
// So after a loss pipeTx writes nothing; the server rolls back.
func (t *pipeTx) lost() bool { return t.conn.Conn().PgConn().IsClosed() }

// hold keeps writes to send in front of the next statement, or with the
// Sync; their errors are that statement's or Commit's.
func (t *pipeTx) hold(b *pgx.Batch) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.held = append(t.held, b.QueuedQueries...)
	return nil
}

// fail records the transaction's first failure and returns it. A
// statement whose result type changed under its prepared description (a
// migration: "cached plan must not change result type") makes the
// connection deallocate its statements and prepare them again.
func (t *pipeTx) fail(err error) error {
	if t.err == nil {
		t.err = err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "0A000" {
		t.statements().stale = true
	}
	return t.err
}

// pipeStatements are the statements pipeTx prepared on one connection, by
// their SQL, and the connection's tracer (pgx copies the whole config to
// return it); they live in the connection's CustomData, and go with it.
type pipeStatements struct {
	bySQL  map[string]*pgconn.StatementDescription
	named  int
	max    int  // statements kept before they are all deallocated
	stale  bool // deallocate them all before the next prepare (fail)
	tracer pgx.BatchTracer
}

// pipeStatementsMax bounds the statements pipeTx keeps prepared on a
// connection, as pgx's own cache does (512): the folded writes make
// statements whose text depends on what a move writes.
const pipeStatementsMax = 512

const pipeStatementsKey = "taasky/pipeTx"

func (t *pipeTx) statements() *pipeStatements {
	data := t.conn.Conn().PgConn().CustomData()
	ps, _ := data[pipeStatementsKey].(*pipeStatements)
	if ps == nil {
		ps = &pipeStatements{bySQL: map[string]*pgconn.StatementDescription{}, max: pipeStatementsMax}
		ps.tracer, _ = t.conn.Conn().Config().Tracer.(pgx.BatchTracer)
		data[pipeStatementsKey] = ps
	}
	return ps
}

// describe returns the description of each statement of qs, preparing
// those the connection has not prepared yet, all in one round trip. When
// they would be more than the bound, or are stale, the connection's are
// deallocated first, all of them (this is rare: a move's statements are a
// few dozen).
func (t *pipeTx) describe(qs []*pgx.QueuedQuery) ([]*pgconn.StatementDescription, error) {
	ps := t.statements()
	sds := make([]*pgconn.StatementDescription, len(qs))
	dropped := 0
	if ps.stale || len(ps.bySQL)+len(qs) > ps.max && slices.ContainsFunc(qs, func(q *pgx.QueuedQuery) bool { return ps.bySQL[q.SQL] == nil }) {
		for _, sd := range ps.bySQL {
			t.pipe.SendDeallocate(sd.Name)
		}
		dropped = len(ps.bySQL)
		clear(ps.bySQL)
		ps.stale = false
	}
	var fresh []*pgconn.StatementDescription
	for i, q := range qs {
		sd := ps.bySQL[q.SQL]
		if sd == nil {
			if j := slices.IndexFunc(fresh, func(f *pgconn.StatementDescription) bool { return f.SQL == q.SQL }); j >= 0 {
				sd = fresh[j]
			} else {
				ps.named++
				sd = &pgconn.StatementDescription{Name: fmt.Sprintf("taasky_pipe_%d", ps.named), SQL: q.SQL}
				t.pipe.SendPrepare(sd.Name, sd.SQL, nil)
				fresh = append(fresh, sd)
			}
		}
		sds[i] = sd
	}
	if len(fresh) == 0 && dropped == 0 {
		return sds, nil
	}
	t.pipe.SendFlushRequest()
	if err := t.pipe.Flush(); err != nil {
		return nil, err
	}
	for range dropped {
		if _, err := t.pipe.GetResults(); err != nil {
			return nil, fmt.Errorf("deallocate: %w", err)
		}
	}
	for _, sd := range fresh {
		res, err := t.pipe.GetResults()
		if err != nil {
			return nil, fmt.Errorf("prepare %q: %w", sd.SQL, err)
		}
		got, ok := res.(*pgconn.StatementDescription)
		if !ok {
			return nil, fmt.Errorf("pipeTx: a prepare answered %T", res)
		}
		sd.ParamOIDs, sd.Fields = got.ParamOIDs, got.Fields
		ps.bySQL[sd.SQL] = sd
	}
	return sds, nil
}

// send sends the held writes and qs, then a Sync (commit) or a Flush (go
// on), in one round trip, and reads the held writes' results; qs's are the
// caller's to read, in order (next).
func (t *pipeTx) send(ctx context.Context, qs []*pgx.QueuedQuery, commit bool) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	if t.batch != nil {
		_ = t.batch.Close() // its results come before the next statement's
		t.batch = nil
	}
	if t.err != nil {
		return t.err
	}
	if t.lost() {
		return t.fail(errLost)
	}
	if t.pipe == nil {
		t.pipe = t.conn.Conn().PgConn().StartPipeline(ctx)
	}
	held := len(t.held)
	all := append(t.held, qs...)
	t.held = nil
	sds, err := t.describe(all)
	if err != nil {
		return t.fail(err)
	}
	t.trace(ctx, all)
	m := t.conn.Conn().TypeMap()
	for i, q := range all {
		if err := t.eqb.Build(m, sds[i], q.Arguments); err != nil {
			return t.fail(fmt.Errorf("encode the arguments of %q: %w", q.SQL, err))
		}
		// The pipeline keeps the result formats until the result is read.
		t.pipe.SendQueryStatement(sds[i], t.eqb.ParamValues, t.eqb.ParamFormats, slices.Clone(t.eqb.ResultFormats))
	}
	if commit {
		t.pipe.SendPipelineSync()
	} else {
		t.pipe.SendFlushRequest()
	}
	if err := t.pipe.Flush(); err != nil {
		return t.fail(err)
	}
	for range held {
		rr, err := t.next()
		if err != nil {
			return err
		}
		if _, err := rr.Close(); err != nil {
			return t.fail(err)
		}
	}
	return nil
}

// next returns the next statement's result, to read and close before the
// one after it.
func (t *pipeTx) next() (*pgconn.ResultReader, error) {
	if t.err != nil {
		return nil, t.err
	}
	res, err := t.pipe.GetResults()
	if err != nil {
		return nil, t.fail(err)
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return nil, t.fail(errSkipped)
	}
	return rr, nil
}

// trace tells the connection's tracer (the metrics, tests) of a round
// trip's statements, as pgx tells it of a batch's.
func (t *pipeTx) trace(ctx context.Context, qs []*pgx.QueuedQuery) {
	tr := t.statements().tracer
	if tr == nil {
		return
	}
	conn := t.conn.Conn()
	ctx = tr.TraceBatchStart(ctx, conn, pgx.TraceBatchStartData{Batch: &pgx.Batch{QueuedQueries: qs}})
	for _, q := range qs {
		tr.TraceBatchQuery(ctx, conn, pgx.TraceBatchQueryData{SQL: q.SQL, Args: q.Arguments})
	}
	tr.TraceBatchEnd(ctx, conn, pgx.TraceBatchEndData{})
}

func (t *pipeTx) one(ctx context.Context, sql string, args []any) (*pgconn.ResultReader, error) {
	if err := t.send(ctx, []*pgx.QueuedQuery{{SQL: sql, Arguments: args}}, false); err != nil {
		return nil, err
	}
	return t.next()
}

func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	rr, err := t.one(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := rr.Close()
	if err != nil {
		return tag, t.fail(err)
	}
	return tag, nil
}

func (t *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rr, err := t.one(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	return t.rows(rr), nil
}

func (t *pipeTx) rows(rr *pgconn.ResultReader) pgx.Rows {
	return &pipeRows{Rows: pgx.RowsFromResultReader(t.conn.Conn().TypeMap(), rr), t: t}
}

func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := t.Query(ctx, sql, args...)
	return &firstRow{rows: rows, err: err}
}

func (t *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if err := t.send(ctx, b.QueuedQueries, false); err != nil {
		return failedBatch{err}
	}
	t.batch = &pipeBatch{t: t, qs: b.QueuedQueries}
	return t.batch
}

func (t *pipeTx) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errNoCopy
}

func (t *pipeTx) Prepare(context.Context, string, string) (*pgconn.StatementDescription, error) {
	return nil, errNoNamed
}

func (t *pipeTx) Begin(context.Context) (pgx.Tx, error) { return nil, errNoNested }
func (t *pipeTx) LargeObjects() pgx.LargeObjects        { return pgx.LargeObjects{} }
func (t *pipeTx) Conn() *pgx.Conn                       { return t.conn.Conn() }

// Commit sends the held writes and the Sync in one round trip. A
// transaction in which a statement failed was rolled back: Commit says so.
func (t *pipeTx) Commit(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	if t.pipe == nil && len(t.held) == 0 {
		t.closed = true
		return nil // nothing was sent
	}
	if t.err != nil {
		t.abort(ctx)
		return fmt.Errorf("%w: %w", pgx.ErrTxCommitRollback, t.err)
	}
	err := t.send(ctx, nil, true)
	if err == nil {
		var res any
		if res, err = t.pipe.GetResults(); err == nil {
			if _, ok := res.(*pgconn.PipelineSync); !ok {
				err = fmt.Errorf("pipeTx: the Sync answered %T", res)
			}
		}
	}
	if err != nil {
		t.abort(ctx)
		return err
	}
	t.closed = true
	return t.pipe.Close()
}

// Rollback drops the held writes, and rolls back what was sent.
func (t *pipeTx) Rollback(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	return t.abort(ctx)
}

// abort ends the transaction with ROLLBACK and a Sync. ROLLBACK is sent
// even after a failure: the failure may be pipeTx's own (an argument it
// could not encode) with statements sent before it, which the Sync alone
// would commit. After PostgreSQL's own failures it skips the ROLLBACK.
func (t *pipeTx) abort(ctx context.Context) error {
	t.closed, t.held = true, nil
	if t.pipe == nil || t.lost() {
		return nil // a lost connection's server rolled back
	}
	rollback := []*pgx.QueuedQuery{{SQL: "rollback"}}
	t.trace(ctx, rollback)
	t.pipe.SendQueryParams(rollback[0].SQL, nil, nil, nil, nil)
	t.pipe.SendPipelineSync()
	if err := t.pipe.Flush(); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	var pgErr *pgconn.PgError
	if err := t.pipe.Close(); err != nil && !errors.As(err, &pgErr) {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// pipeRows are a statement's rows; an error PostgreSQL sends with them
// fails the transaction.
type pipeRows struct {
	pgx.Rows
	t *pipeTx
}

func (r *pipeRows) Close() {
	r.Rows.Close()
	var pgErr *pgconn.PgError
	if err := r.Rows.Err(); errors.As(err, &pgErr) {
		r.t.fail(err)
	}
}

// pipeBatch reads a batch's results from the pipeline, in order.
type pipeBatch struct {
	t      *pipeTx
	qs     []*pgx.QueuedQuery
	i      int
	err    error
	closed bool
}

func (b *pipeBatch) result() (*pgconn.ResultReader, error) {
	if b.closed {
		return nil, errors.New("pipeTx: batch already closed")
	}
	if b.i >= len(b.qs) {
		return nil, errors.New("pipeTx: no more results in the batch")
	}
	b.i++
	rr, err := b.t.next()
	if err != nil && b.err == nil {
		b.err = err
	}
	return rr, err
}

func (b *pipeBatch) Exec() (pgconn.CommandTag, error) {
	rr, err := b.result()
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := rr.Close()
	if err != nil {
		b.err = b.t.fail(err)
	}
	return tag, err
}

func (b *pipeBatch) Query() (pgx.Rows, error) {
	rr, err := b.result()
	if err != nil {
		return nil, err
	}
	return b.t.rows(rr), nil
}

func (b *pipeBatch) QueryRow() pgx.Row {
	rows, err := b.Query()
	return &firstRow{rows: rows, err: err}
}

// Close reads the results not read yet, running their callbacks as pgx
// does, and returns the batch's first error.
func (b *pipeBatch) Close() error {
	for !b.closed && b.err == nil && b.i < len(b.qs) {
		if fn := b.qs[b.i].Fn; fn != nil {
			if err := fn(b); err != nil {
				b.err = err
			}
		} else {
			_, _ = b.Exec()
		}
	}
	b.closed = true
	if b.err == nil {
		b.err = b.t.err
	}
	return b.err
}

func (b *pipeBatch) Tx() pgx.Tx { return b.t }

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
