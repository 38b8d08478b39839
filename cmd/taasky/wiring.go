package main

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/receipt"
)

// deps is what the process opened, handed to the parts it wires.
type deps struct {
	cfg      config.Config
	log      *slog.Logger
	pool     *pgxpool.Pool
	accounts *app.Accounts
	// river inserts jobs (InsertTx, in the caller's transaction) in every
	// role; it works them only in the worker role.
	river   *river.Client[pgx.Tx]
	rooms   *app.Rooms
	metrics *metrics
	health  *health
	// sweeper is the sweep's worker (what falls due by time); its services
	// are set once the River client they need exists (the services insert
	// jobs, the worker runs them).
	sweeper *jobs.SweepWorker
	// deleter finishes deleting accounts (jobs.AccountDeleteArgs); its
	// service is set once the rooms exist, as the sweeper's.
	deleter *jobs.AccountDeleteWorker
	// notify is the notifications service and its workers (workers_notify.go).
	notify *notifier
	// receipts are the receipt keys of a process that signs them, with
	// every public key the database keeps (publishedReceiptKeys); nil:
	// derived when needed (receiptKeys).
	receipts *receipt.Keyring
	// retiredEmail are the keys of the addresses' hashes kept from
	// SECRET_KEYs rotated before (app.RetiredEmailKeys).
	retiredEmail [][]byte
}

// newApp builds the one Fiber app of the web role. Mount the MCP endpoint
// (POST /mcp/:account, behind the agent-key middleware) and the dashboard
// here; keep handlers in their own packages and only wire them here.
func newApp(ctx context.Context, d deps) (*fiber.App, error) {
	a := newProbeApp(d)
	door, err := mountOAuth(a, d)
	if err != nil {
		return nil, err
	}
	mountMCP(a, d, door)
	live, err := mountDashboard(ctx, a, d, door)
	if err != nil {
		return nil, err
	}
	// One LISTEN connection per process: the live pages, and the agent
	// keys the MCP endpoint keeps while it hears of their changes.
	go app.Listen(ctx, d.pool.Config().ConnConfig.Copy(), d.log.With("component", "listen"), append(live, d.accounts.KeyChanges())...)
	return a, nil
}

// newProbeApp is a Fiber app with the service's timeouts, error handler
// and panic recovery, answering /healthz, /readyz and /metrics. It is all
// a worker-only process (`serve --web=false`) serves: its probes, and the
// jobs' and the sweep's series, which only a working process counts;
// every other path is 404 there (no dashboard, MCP or OAuth). newApp
// mounts the web role on it.
func newProbeApp(d deps) *fiber.App {
	a := fiber.New(fiber.Config{
		AppName:               "taasky",
		DisableStartupMessage: true,
		ReadTimeout:           maxRequestRead,
		WriteTimeout:          60 * time.Second,
		IdleTimeout:           2 * time.Minute,
		BodyLimit:             maxRequestBody,
		ReadBufferSize:        maxRequestHead,
		ErrorHandler:          errorHandler(d.log),
	})
	fiberhttp.LingerOnRefusal(a) // a refused request's client reads its 431, 413 or 400
	// Before all: every line logged about a request names it.
	a.Use(fiberhttp.RequestIDFrom(d.cfg.Abuse.TrustedProxies))
	// A body framed by anything but chunked or a Content-Length: refused
	// at once, unread.
	a.Use(fiberhttp.ChunkedOnly(a))
	// Before any route reads a body: no compressed one (a zip bomb).
	a.Use(fiberhttp.IdentityOnly)
	// A handler's panic is that request's 500, logged with its stack: not
	// the end of the process and of every request in flight.
	a.Use(recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: func(c *fiber.Ctx, e any) {
		d.log.ErrorContext(c.UserContext(), "request panicked", "method", c.Method(), "path", fiberhttp.LogPath(c), "panic", fmt.Sprint(e), "stack", string(debug.Stack()))
	}}))
	a.Get("/healthz", d.health.live)
	a.Get("/readyz", d.health.ready)
	if d.metrics != nil {
		d.metrics.mount(a)
	}
	return a
}

// addWorkers registers the River workers (jobs/) that the worker role runs,
// and returns how many it added: River refuses to start working with none.
// Every role calls it, so that inserting a job of an unknown kind fails.
// The close and reminder jobs of the rooms opened before the sweep finish
// as no-ops (jobs.CloseDueWorker, jobs.RemindWorker).
func addWorkers(workers *river.Workers, d deps) int {
	river.AddWorker(workers, d.sweeper)
	river.AddWorker(workers, d.deleter)
	river.AddWorker(workers, &jobs.CloseDueWorker{})
	retention := app.NewRetention(d.pool, app.RetentionPeriods(d.cfg.Retention))
	river.AddWorker(workers, &jobs.PurgeWorker{Tokens: app.NewOAuth(d.pool), Log: d.log, Data: retention, Sessions: retention, Deletions: retention})
	return 4 + addNotifyWorkers(workers, d)
}

// newAccounts is the accounts service with the caps on agents and keys
// (AGENTS_PER_ACCOUNT_MAX, KEYS_PER_AGENT_MAX), for every door that
// creates them: the dashboard, the CLI, the OAuth consent (mountOAuth).
func newAccounts(pool *pgxpool.Pool, cfg config.Config) *app.Accounts {
	a := app.NewAccounts(pool)
	a.SetCaps(app.Caps{AgentsPerAccount: cfg.Abuse.AgentsPerAccountMax, KeysPerAgent: cfg.Abuse.KeysPerAgentMax})
	return a
}

// newRooms builds the negotiation service on the River client.
func newRooms(d deps) (*app.Rooms, error) {
	keys := d.receipts
	if keys == nil {
		var err error
		if keys, err = receiptKeys(d.cfg); err != nil {
			return nil, err
		}
	}
	return app.NewRooms(app.RoomsConfig{Pool: d.pool, River: d.river, LimitsKey: d.cfg.Key("limits"),
		TokenKey: d.cfg.Key("room-tokens"), PreviousLimitsKey: d.cfg.PreviousKey("limits"), PreviousTokenKey: d.cfg.PreviousKey("room-tokens"),
		RetiredEmailKeys: d.retiredEmail, BaseURL: d.cfg.BaseURL, Pace: d.cfg.Abuse.Pace,
		InviteEmailDailyCap: d.cfg.Mail.InviteDailyCap, OpenRoomsPerAccount: d.cfg.Abuse.OpenRoomsPerAccountMax, OneTapKept: d.cfg.Retention.OneTap, Log: d.log, Accounts: d.accounts, Receipts: keys})
}

// receiptKeys are the receipt keys of this service: versions 1 to
// RECEIPT_KEY_VERSION, derived from SECRET_KEY, for BASE_URL (a
// configuration not read by loadConfig signs with version 1).
func receiptKeys(cfg config.Config) (*receipt.Keyring, error) {
	return receipt.NewKeyring(cfg.BaseURL, max(cfg.ReceiptKeyVersion, 1), cfg.ReceiptSeed)
}

// previousReceiptKeys are receiptKeys under SECRET_KEY_PREVIOUS (nil when
// it is unset): the keys that signed before a rotation of SECRET_KEY.
func previousReceiptKeys(cfg config.Config) (*receipt.Keyring, error) {
	if !cfg.Rotating() {
		return nil, nil
	}
	return receipt.NewKeyring(cfg.BaseURL, max(cfg.ReceiptKeyVersion, 1), cfg.PreviousReceiptSeed)
}

// publishedReceiptKeys are receiptKeys, publishing besides every public
// key the database keeps, after keeping this process's (and during a
// rotation SECRET_KEY_PREVIOUS's) there (app.PublishReceiptKeys): a
// receipt signed before a rotation still verifies after it.
func publishedReceiptKeys(ctx context.Context, pool *pgxpool.Pool, cfg config.Config) (*receipt.Keyring, error) {
	keys, err := receiptKeys(cfg)
	if err != nil {
		return nil, err
	}
	previous, err := previousReceiptKeys(cfg)
	if err != nil {
		return nil, err
	}
	if err := app.PublishReceiptKeys(ctx, pool, app.ReceiptKeys{Keyring: keys, Previous: previous,
		MAC: cfg.Key("receipt-keys"), PreviousMAC: cfg.PreviousKey("receipt-keys")}); err != nil {
		return nil, err
	}
	return keys, nil
}

// newRiver returns the River client: with queues to work when work is true
// and some worker exists, else an insert-only client.
func newRiver(d deps, work bool) (client *river.Client[pgx.Tx], working bool, err error) {
	workers := river.NewWorkers()
	n := addWorkers(workers, d)
	cfg := &river.Config{
		ID:              newNodeID(), // its lease's name (rescue.go)
		Logger:          riverLogger(d.log),
		Workers:         workers,
		SoftStopTimeout: 20 * time.Second, // then running jobs are cancelled
		// A process killed mid-job leaves its jobs "running": River gives
		// them back after RescueStuckJobsAfter (by default an hour, which
		// would hold a confirmation request that long). Jobs take seconds
		// (an SMTP send times out in 15 s), so a job still running after
		// JobTimeout is cancelled, and one still "running" after a minute
		// belongs to a process that died.
		JobTimeout:           30 * time.Second,
		RescueStuckJobsAfter: time.Minute,
		FetchCooldown:        jobs.FetchCooldown,
		RetryPolicy:          &jobs.RetryPolicy{}, // emails within minutes of their server's return
		// During a rolling upgrade the workers of two builds share the
		// queues: a job of a kind this build has no worker for (a newer
		// build's) stays available, its attempts unspent, for a worker
		// that knows it, instead of failing here attempt after attempt.
		FetchOnlyKnownKinds: true,
	}
	if work && n > 0 {
		cfg.Queues = jobs.Queues(jobWorkers, outboundWorkers)
		// The elected leader among the working processes inserts it.
		cfg.PeriodicJobs = []*river.PeriodicJob{jobs.SweepJob(), jobs.PurgeJob()}
	}
	client, err = river.NewClient(riverpgxv5.New(d.pool), cfg)
	return client, cfg.Queues != nil, err
}
