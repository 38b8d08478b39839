package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/migrations"
)

// loadConfig is config.Load with its problems laid out one per line.
func loadConfig(getenv func(string) string, role config.Role) (config.Config, error) {
	cfg, err := config.Load(getenv, role)
	err = errors.Join(err, cfg.LoadMail(getenv)) // SMTP_FROM, INVITE_EMAIL_DAILY_CAP: more lines among Load's
	err = errors.Join(err, cfg.LoadShutdown(getenv))
	err = errors.Join(err, cfg.LoadReceipts(getenv))
	err = errors.Join(err, cfg.LoadRetention(getenv))
	err = errors.Join(err, cfg.LoadOAuth(getenv))
	if err != nil {
		return cfg, fmt.Errorf("the configuration is incomplete or wrong (see README.md):\n  %s",
			strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	return cfg, nil
}

// checkSecretKey refuses to go on when SECRET_KEY is not the key of the
// installation's other processes (app.CheckSecretKey): every command that
// uses the key against the database (serve, dev, check, account delete,
// bench's seeding) calls it after openDatabase. The first process records
// the key's fingerprint.
func checkSecretKey(ctx context.Context, pool *pgxpool.Pool, cfg config.Config) error {
	return app.CheckSecretKey(ctx, pool, cfg.Key("key-check"), cfg.PreviousKey("key-check"))
}

// poolConns is the pool's size unless DATABASE_URL sets pool_max_conns;
// jobWorkers is how many jobs of the default queue (mails, the sweep) one
// process works at once, outboundWorkers how many pushes and webhooks
// (jobs.QueueOutbound: they mostly wait on another host, holding no
// connection). The pool keeps room for requests beside every worker.
const (
	poolConns       = 50
	jobWorkers      = 20
	outboundWorkers = 10
)

// openDatabase opens a pool to dsn, checks that the database answers, and
// brings its schema up to date. Every command that touches the database
// migrates first, so a fresh database just works (Up is cheap when there is
// nothing to do, and safe when several processes start at once).
func openDatabase(ctx context.Context, dsn string, tracer ...pgx.QueryTracer) (*pgxpool.Pool, error) {
	pool, err := connect(ctx, "DATABASE_URL", dsn, tracer...)
	if err != nil {
		return nil, err
	}
	shared, err := app.SessionsShared(ctx, pool)
	if err == nil && shared {
		err = errSessionsShared
	}
	if err == nil {
		err = migrations.Up(ctx, pool)
	}
	if err != nil {
		pool.Close()
		if app.TooManyConnections(err) {
			err = fmt.Errorf("%w; %s", err, tooManyConnectionsHint)
		}
		return nil, err
	}
	return pool, nil
}

// errSessionsShared stops a process whose DATABASE_URL leads to a pooler
// that lends one PostgreSQL session to several clients (app.SessionsShared),
// before anything runs there: through PgBouncer in transaction mode the
// migrations' first statement failed with `prepared statement
// "stmtcache_…" already exists`, and a worker that got past it failed
// its jobs the same way and held no lease of its own.
var errSessionsShared = errors.New("DATABASE_URL: two of Taasky's connections ran in one PostgreSQL session: " +
	"a pooler in transaction or statement mode is in front of PostgreSQL (PgBouncer's pool_mode = transaction), " +
	"and Taasky keeps state in its sessions (LISTEN, the workers' lease, the migrations' lock, prepared statements): " +
	"point DATABASE_URL at PostgreSQL itself or at a pooler in session mode (docs/operations.md \"Connections\")")

// tooManyConnectionsHint follows PostgreSQL's "too many clients" (SQLSTATE
// 53300) at start.
const tooManyConnectionsHint = "PostgreSQL's max_connections are all taken: each Taasky process opens up to pool_max_conns " +
	"(50 unless DATABASE_URL sets it) plus 2 of its own; raise max_connections, lower pool_max_conns, " +
	"or end other clients' connections (docs/operations.md \"Connections\")"

// connect opens a pool to dsn (from the environment variable named) with
// the service's settings and checks that the database answers.
func connect(ctx context.Context, name, dsn string, tracer ...pgx.QueryTracer) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(tracer) > 0 {
		pc.ConnConfig.Tracer = tracer[0]
	}
	// Every statement is prepared once per connection (pgx's cache) and
	// looks rows up by keys: a generic plan is as good as a custom one,
	// and PostgreSQL's default would plan the room's read again at each
	// execution (as long as the execution itself, measured).
	//
	// The statements are short and reach their rows through indexes, but a
	// generic plan costs one account's rows as an average over all of
	// them: with millions of rooms a list's plan looks costly enough to
	// JIT-compile and to share among parallel workers, and PostgreSQL then
	// compiles it and starts the workers at every execution (it keeps no
	// compiled code, and workers are processes started for the statement),
	// for every tenant alike: milliseconds, tens loaded, for a page of rows
	// read in a fraction of one (docs/performance-history.md, "Ten million rooms").
	//
	// SET on each new connection, not sent as startup parameters, unless
	// DATABASE_URL names them: PgBouncer refuses a connection that sends
	// one it does not know (docs/operations.md "Connections").
	var settings []app.Setting
	for _, s := range []app.Setting{{Name: "plan_cache_mode", Value: "force_generic_plan"}, {Name: "jit", Value: "off"}, {Name: "max_parallel_workers_per_gather", Value: "0"}} {
		if _, set := pc.ConnConfig.RuntimeParams[s.Name]; !set {
			settings = append(settings, s)
		}
	}
	pc.ConnConfig.AfterConnect = app.SetOnConnect(pc.ConnConfig.AfterConnect, settings...)
	if !strings.Contains(dsn, "pool_max_conns") {
		// pgxpool's default (4 on a 2-core machine) is short for web
		// requests plus River: its workers (jobWorkers), producers and
		// listener must not take every connection from the requests, nor
		// the requests from them (at 32 clients, a pool of 20 with 20
		// workers starved the email jobs for seconds).
		pc.MaxConns = poolConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, connectError{name: name, cfg: pc.ConnConfig, err: err}
	}
	return pool, nil
}

// connectError is a failed connection said in one line that names the
// variable the connection string came from, the database and the user
// (never the password), and each distinct reason once: pgx's own error
// spans lines and repeats a reason for each attempt (with and without TLS).
type connectError struct {
	name string
	cfg  *pgx.ConnConfig
	err  error
}

func (e connectError) Error() string {
	var reasons []string
	for _, r := range connectReasons(e.err) {
		r = strings.Join(strings.Fields(r), " ") // one line, whatever the server said
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	db := e.cfg.Database
	if db == "" {
		db = e.cfg.User // PostgreSQL's default
	}
	if app.TooManyConnections(e.err) {
		reasons = append(reasons, tooManyConnectionsHint)
	}
	return fmt.Sprintf("%s: cannot connect to the database %q as user %q: %s", e.name, db, e.cfg.User, strings.Join(reasons, "; "))
}

func (e connectError) Unwrap() error { return e.err }

// connectReasons is each attempt's error in err: pgconn.ConnectError holds
// them joined (behind "hostname resolving error: " when no host resolved).
func connectReasons(err error) []string {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return []string{err.Error()}
	}
	inner, prefix := ce.Unwrap(), ""
	if _, joined := inner.(interface{ Unwrap() []error }); !joined {
		if wrapped, ok := errors.Unwrap(inner).(interface{ Unwrap() []error }); ok {
			prefix = strings.TrimSuffix(inner.Error(), errors.Unwrap(inner).Error())
			inner = wrapped.(error)
		}
	}
	j, ok := inner.(interface{ Unwrap() []error })
	if !ok {
		return []string{prefix + inner.Error()}
	}
	var out []string
	for _, e := range j.Unwrap() {
		out = append(out, prefix+e.Error())
	}
	return out
}
