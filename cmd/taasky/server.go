package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/internal/refusals"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/receipt"
)

// server is one process of the service: the database pool, River, and the
// HTTP listener (the web role's app, or a worker-only process's probes and
// /metrics).
type server struct {
	deps
	web     bool
	working bool // River works jobs here
	// endWeb ends what the web app runs beside its requests (webApp): the
	// live pages' streams and the LISTEN connection.
	endWeb context.CancelFunc
}

// openServer opens (and migrates) the database and builds the River client.
func openServer(ctx context.Context, cfg config.Config, log *slog.Logger, web, worker bool) (*server, error) {
	m := newMetrics()
	m.log = log.With("component", "database")
	m.refusals = refusals.New(log)
	m.registry.MustRegister(m.refusals.Collector())
	pool, err := openDatabase(ctx, cfg.DatabaseURL, m)
	if err != nil {
		return nil, err
	}
	if err := checkSecretKey(ctx, pool, cfg); err != nil {
		pool.Close()
		return nil, err
	}
	// Before it can sign: a version that signed stays published. Only a
	// process that signs (serve, dev: its requests and its jobs) records
	// its version or is held to the installation's; check and account
	// delete (neither role) sign nothing, so an operator's run with another
	// RECEIPT_KEY_VERSION, or none, neither fails nor raises the version
	// the service's processes must start with.
	var receipts *receipt.Keyring
	if web || worker {
		m.watchQueues(pool, log.With("component", "metrics"))
		offset, err := app.KeepReceiptKeyVersionClock(ctx, pool, max(cfg.ReceiptKeyVersion, 1), time.Now)
		if err != nil {
			pool.Close()
			return nil, err
		}
		m.clockOffset(offset, log)
		if receipts, err = publishedReceiptKeys(ctx, pool, cfg); err != nil {
			pool.Close()
			return nil, err
		}
	}
	// The keys of the addresses' hashes under SECRET_KEYs rotated before.
	retired, err := app.RetiredEmailKeys(ctx, pool, cfg.Key("limits"), cfg.PreviousKey("limits"))
	if err != nil {
		pool.Close()
		return nil, err
	}
	d := deps{
		cfg:      cfg,
		log:      log,
		pool:     pool,
		accounts: newAccounts(pool, cfg),
		health:   &health{pool: pool, log: log, jobsOnly: worker && !web},
		metrics:  m,
		sweeper:  &jobs.SweepWorker{Log: log},
		deleter:  &jobs.AccountDeleteWorker{},
		notify:   newNotifier(cfg, log),
		receipts: receipts,

		retiredEmail: retired,
	}
	client, working, err := newRiver(d, worker)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("river: %w", err)
	}
	d.river = client
	if err = d.accounts.UseTeams(app.TeamsConfig{River: client, SealKey: cfg.Key("member-invites"), BaseURL: cfg.BaseURL,
		SignupDailyCap: cfg.Abuse.SignupDailyCap, InviteDailyCap: cfg.Mail.InviteDailyCap,
		UnsubscribeKey: cfg.Key("unsubscribe"), RoomTokenKey: cfg.Key("room-tokens"),
		PreviousSealKey: cfg.PreviousKey("member-invites"), PreviousRoomTokenKey: cfg.PreviousKey("room-tokens"),
		RetiredEmailKeys: d.retiredEmail}); err != nil {
		pool.Close()
		return nil, err
	}
	if d.rooms, err = newRooms(d); err != nil {
		pool.Close()
		return nil, err
	}
	if err = d.notify.bind(d); err != nil {
		pool.Close()
		return nil, err
	}
	// Before any job or request: a restored copy hands out no id the time
	// lost after its backup handed out, and asks its pending confirmations
	// again (River's client queues them; it works nothing yet).
	if web || worker {
		if err := moveOnIfRestored(ctx, pool, log, d.notify.svc); err != nil {
			pool.Close()
			return nil, err
		}
	}
	d.sweeper.Rooms, d.sweeper.Reminders = d.rooms, d.notify.svc
	d.deleter.Accounts = d.rooms
	if worker && !working {
		log.Info("no job workers are registered yet: jobs are inserted, not worked")
	}
	return &server{deps: d, web: web, working: working}, nil
}

// close lets the last room changes reach the other processes' live pages,
// then closes the pool.
func (s *server) close() {
	if s.endWeb != nil {
		s.endWeb()
	}
	s.rooms.Close()
	s.pool.Close()
}

// serve runs until ctx is done, then shuts down gracefully: /readyz turns
// 503 for SHUTDOWN_GRACE while requests are still served, the listener
// stops accepting, requests in flight finish (20 s at
// most), River finishes its running jobs (cancelled after SoftStopTimeout).
// A worker-only process has no load balancer to wait for: /readyz turns
// 503, River finishes its jobs, then the listener closes, so that /healthz
// and /metrics answer until the jobs are done.
// web (from webApp) is served on LISTEN_ADDR unless nil;
// listening, if set, is called once it accepts requests.
func (s *server) serve(ctx context.Context, web *fiber.App, listening func(addr string)) error {
	if s.working {
		// The lease first: no job is fetched before the other workers can
		// see this process alive; then the rescue of dead workers' jobs
		// (rescue.go). Both end with the pool's close.
		leaseCtx, endLease := context.WithCancel(context.WithoutCancel(ctx))
		defer endLease()
		s.startLease(leaseCtx)
		go s.rescueOrphans(leaseCtx)
		unwatch := s.metrics.jobs.Watch(s.river) // until River stops
		// Not ctx: its end must stop River gracefully (Stop below), not
		// cancel the jobs at once.
		if err := s.river.Start(context.WithoutCancel(ctx)); err != nil {
			unwatch()
			return fmt.Errorf("start river: %w", err)
		}
		s.health.working.Store(true)
		stopped := s.river.Stopped() // set by Start
		go func() {
			<-stopped
			s.health.working.Store(false)
		}()
	}
	httpDone := make(chan error, 1)
	if web != nil {
		ln, err := net.Listen("tcp", s.cfg.ListenAddr)
		if err != nil {
			if !s.web {
				err = fmt.Errorf("%w (a worker-only process serves /healthz, /readyz and /metrics there: give each process on a host an address of its own)", err)
			}
			return errors.Join(fmt.Errorf("LISTEN_ADDR: %w", err), s.stopRiver())
		}
		if s.web {
			s.log.Info("listening", "addr", ln.Addr().String(), "base_url", s.cfg.BaseURL)
		} else {
			s.log.Info("listening", "addr", ln.Addr().String(), "serves", "/healthz /readyz /metrics")
		}
		go func() { httpDone <- serveHTTP(web, ln) }()
		if listening != nil {
			listening(ln.Addr().String())
		}
	}

	var err error
	select {
	case <-ctx.Done():
	case err = <-httpDone: // the listener failed
		web = nil
	}
	s.log.Info("shutting down")
	s.health.stopping.Store(true)
	if web != nil && s.web {
		s.drainGrace() // shutdown.go
		// A waiting negotiation_read (up to 25 s) answers now with its
		// room, rather than being cut by the drain's 20 s unanswered.
		s.rooms.EndWaits()
		// So do the live pages' streams (a browser opens its stream again
		// on another node), and the LISTEN connection they hear by.
		if s.endWeb != nil {
			s.endWeb()
		}
		err = errors.Join(err, closeHTTP(web, httpDone))
		web = nil
	}
	err = errors.Join(err, s.stopRiver())
	s.health.working.Store(false) // stopped, or given up on
	// A worker-only process's probes and /metrics close after its jobs.
	if web != nil {
		err = errors.Join(err, closeHTTP(web, httpDone))
	}
	s.log.Info("stopped")
	return err
}

// serveHTTP serves web on ln until web shuts down, ln's connections
// keeping what the refusals before any handler need
// (fiberhttp.Listener).
func serveHTTP(web *fiber.App, ln net.Listener) error {
	return web.Listener(fiberhttp.Listener(ln))
}

// closeHTTP stops web's listener, lets the requests in flight finish (20 s
// at most) and returns how its serving ended.
func closeHTTP(web *fiber.App, httpDone <-chan error) error {
	var err error
	if e := web.ShutdownWithTimeout(20 * time.Second); e != nil {
		err = fmt.Errorf("shut down http: %w", e)
	}
	return errors.Join(err, <-httpDone)
}

// webApp is what the process serves on LISTEN_ADDR: newApp in the web
// role, the probes and /metrics alone (newProbeApp) in a worker-only one.
func (s *server) webApp(ctx context.Context) (*fiber.App, error) {
	if !s.web {
		return newProbeApp(s.deps), nil
	}
	// Not ctx itself: the signal must not end the live pages' streams and
	// the LISTEN connection while SHUTDOWN_GRACE still serves requests (a
	// stream ended then was opened again on this node, said it was live
	// and ended at once, every 1.5 s, each time making its page fetch
	// itself again). serve ends them as the listener closes.
	webCtx, end := context.WithCancel(context.WithoutCancel(ctx))
	a, err := newApp(webCtx, s.deps)
	if err != nil {
		end()
		return nil, err
	}
	s.endWeb = end
	return a, nil
}

func (s *server) stopRiver() error {
	if !s.working {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.river.Stop(ctx); err != nil {
		return fmt.Errorf("stop river: %w", err)
	}
	return nil
}
