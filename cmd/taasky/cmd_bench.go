package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/gofiber/fiber/v2"
	"github.com/taasky/taasky/internal/fiberhttp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/bench"
	"github.com/taasky/taasky/internal/config"
)

// runBench is `taasky bench`: real MCP agents negotiating through a Taasky
// server, measured against the machine's own floors in the same run.
func runBench(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("bench", "Runs agent pairs as real MCP clients through whole negotiations (each human confirming\n"+
		"through the one-tap link of their email, caught by an SMTP sink), then an echo tool through the same\n"+
		"stack (alone, and with pgbench -N's transaction in each call) and pgbench -N at the same client count,\n"+
		"and prints the figures and their ratios.\n"+
		"Without --url it starts `taasky serve` on DATABASE_URL (or the local PostgreSQL, database taasky_bench, created afresh at each run).", stdout)
	url := cmd.String("url", "", "a running Taasky to load (its SMTP_URL must point at --sink; DATABASE_URL must be its database)")
	sinkAddr := cmd.String("sink", "", "address of the SMTP sink (default: a free port on 127.0.0.1)")
	pairs := cmd.Int("pairs", 8, "agent pairs (two MCP clients each: the calls in flight at once)")
	inflight := cmd.Int("inflight", 4, "negotiations each pair keeps going at once, so its clients have work while a human confirms")
	duration := cmd.Duration("duration", 30*time.Second, "length of each measured run")
	slots := cmd.Float64("slots", 0.3, "share of negotiations opened with slots, 0 to 1 (the others: offer and counters)")
	counters := cmd.Int("counters", 2, "counters before the approvals in the other negotiations")
	echo := cmd.Bool("echo", true, "measure the echo floor too")
	pgbench := cmd.Bool("pgbench", true, "run pgbench -N too (when installed)")
	pprofAddr := cmd.String("pprof", "", "have the started server serve net/http/pprof here, e.g. 127.0.0.1:6060")
	scale := cmd.String("scale", "", "also measure the rooms lists in accounts of these sizes, e.g. 1000,100000 (seeds the rooms)")
	scaleCalls := cmd.Int("scale-calls", 1000, "calls measured per list and size (p99 is the 10th slowest of 1,000)")
	due := cmd.Int("sweep", 0, fmt.Sprintf("with --scale: then seed this many rooms falling due at %d/s and measure how late the sweep closes them", bench.DueRate))
	live := cmd.Int("live", 0, "instead: hold this many live dashboard pages open (signed in through an OIDC issuer the bench serves), make moves in their rooms and time each page's event")
	waiters := cmd.Int("waiters", 0, "with --live: agents waiting in negotiation_read with wait_seconds, one per room, timed from the move to their answer")
	perRoom := cmd.Int("pages-per-room", 5, "with --live: pages showing each room (one a member's rooms list, the others the room's page)")
	rounds := cmd.Int("rounds", 3, "with --live: rounds of moves, each a counter in every room")
	moveRate := cmd.Int("move-rate", 200, "with --live: moves per second in a round (0: as fast as --movers go)")
	movers := cmd.Int("movers", 16, "with --live: MCP clients making the moves")
	if err := cmd.parse(args); err != nil {
		return err
	}
	if *live > 0 || *waiters > 0 {
		return runBenchLive(ctx, cmd, getenv, stdout, bench.LiveOptions{Pages: *live, Waiters: *waiters, PagesPerRoom: *perRoom,
			Rounds: *rounds, MoveRate: *moveRate, Movers: *movers, PprofAddr: *pprofAddr, Out: stdout}, *url)
	}
	switch {
	case *pairs < 1 || *pairs > 512:
		return cmd.fail("--pairs must be from 1 to 512")
	case *duration < time.Second || *duration > time.Hour:
		return cmd.fail("--duration must be from 1s to 1h")
	case *slots < 0 || *slots > 1:
		return cmd.fail("--slots must be from 0 to 1")
	case *counters < 0 || *counters > 40:
		return cmd.fail("--counters must be from 0 to 40")
	}
	dsn := getenv("DATABASE_URL")
	if dsn == "" {
		if *url != "" {
			return cmd.fail("--url needs DATABASE_URL: the target's database, where the bench creates its accounts")
		}
		var err error
		if dsn, err = freshLocalDatabase(ctx, localCandidates(getenv), "taasky_bench"); err != nil {
			return fmt.Errorf("no DATABASE_URL and no local PostgreSQL: %w", err)
		}
	}
	secret := getenv("SECRET_KEY")
	if secret == "" && *url == "" {
		secret = hex.EncodeToString(randomBytes(24))
	}
	o := bench.Options{URL: *url, DatabaseURL: dsn, SinkAddr: *sinkAddr, Pairs: *pairs, Inflight: *inflight, Duration: *duration,
		SlotsShare: *slots, Counters: *counters, Echo: *echo, SecretKey: secret, PprofAddr: *pprofAddr, Out: stdout}
	var so *bench.ScaleOptions
	if *due != 0 && *scale == "" {
		return cmd.fail("--sweep needs --scale: the rooms beside which the sweep is measured")
	}
	if *scale != "" {
		sizes, err := parseSizes(*scale)
		if err != nil {
			return cmd.fail("--scale: %v", err)
		}
		if secret == "" {
			return cmd.fail("--scale with --url needs SECRET_KEY: the target's, to seed rooms it can read")
		}
		rooms, closeRooms, err := benchRooms(ctx, dsn, secret)
		if err != nil {
			return err
		}
		defer closeRooms()
		if *due < 0 || *due > 100_000 {
			return cmd.fail("--sweep must be from 0 to 100000")
		}
		so = &bench.ScaleOptions{Sizes: sizes, Calls: *scaleCalls, Seats: rooms.NewSeatSecrets, Due: *due,
			HumanList: func(ctx context.Context, userID int64, cursor string) (string, error) {
				_, next, err := rooms.ListForHuman(ctx, userID, "", cursor)
				return next, err
			}}
	}
	if *pgbench {
		if pg, err := findLocalPostgres(ctx, localCandidates(getenv), "taasky_pgbench"); err == nil {
			o.PGBenchURL = pg
		} else {
			fmt.Fprintf(stdout, "pgbench: no local PostgreSQL for its scratch database: %v\n", err)
		}
	}
	if *url == "" && so == nil {
		// The server the bench starts migrates its database itself; its
		// key is checked here first, to refuse with the bench's hint.
		_, closeRooms, err := benchRooms(ctx, dsn, secret)
		if err != nil {
			return err
		}
		closeRooms()
	}
	rep, err := bench.Run(ctx, o, so)
	if err != nil {
		return err
	}
	if rep.Errors > 0 {
		return fmt.Errorf("%d negotiations failed; the first: %v", rep.Errors, rep.FirstError)
	}
	return nil
}

// runBenchLive is `taasky bench --live`: pages and waiting agents on a
// server the bench starts (it serves that server's OIDC issuer).
func runBenchLive(ctx context.Context, cmd *command, getenv func(string) string, stdout io.Writer, o bench.LiveOptions, url string) error {
	var lim syscall.Rlimit
	_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	switch {
	case url != "":
		return cmd.fail("--live and --waiters run on a server the bench starts (it serves the server's OIDC issuer): leave --url out")
	case o.Pages < 0 || o.Pages > 100_000:
		return cmd.fail("--live must be from 0 to 100000 pages")
	case o.Waiters < 0 || o.Waiters > 10_000:
		return cmd.fail("--waiters must be from 0 to 10000")
	case o.PagesPerRoom < 1 || o.PagesPerRoom > 100:
		return cmd.fail("--pages-per-room must be from 1 to 100")
	case o.Rounds < 1 || o.Rounds > 40:
		return cmd.fail("--rounds must be from 1 to 40 (a room takes 50 rounds)")
	case o.MoveRate < 0 || o.MoveRate > 100_000:
		return cmd.fail("--move-rate must be from 0 (unpaced) to 100000 a second")
	case o.Movers < 1 || o.Movers > 512:
		return cmd.fail("--movers must be from 1 to 512")
	case lim.Cur > 0 && uint64(o.Pages+o.Waiters+o.Movers+256) > lim.Cur:
		return cmd.fail("--live %d and --waiters %d need %d connections, more than this process may open (ulimit -n: %d)",
			o.Pages, o.Waiters, o.Pages+o.Waiters+o.Movers+256, lim.Cur)
	}
	dsn := getenv("DATABASE_URL")
	if dsn == "" {
		var err error
		if dsn, err = freshLocalDatabase(ctx, localCandidates(getenv), "taasky_bench"); err != nil {
			return fmt.Errorf("no DATABASE_URL and no local PostgreSQL: %w", err)
		}
	}
	o.DatabaseURL = dsn
	if o.SecretKey = getenv("SECRET_KEY"); o.SecretKey == "" {
		o.SecretKey = hex.EncodeToString(randomBytes(24))
	}
	// benchRooms migrates the database: seats are minted before the server starts.
	rooms, closeRooms, err := benchRooms(ctx, dsn, o.SecretKey)
	if err != nil {
		return err
	}
	defer closeRooms()
	o.Seats = rooms.NewSeatSecrets
	rep, err := bench.RunLive(ctx, o)
	if err != nil {
		return err
	}
	return rep.Err()
}

// runBenchEchoDefault is the hidden `taasky bench-echo-default`: the echo
// as go-sdk's documentation builds it (a typed tool, net/http), run with
// default runtime settings (the bench sets GOGC=100): the baseline that
// Taasky's own floor is compared with.
func runBenchEchoDefault(ctx context.Context, getenv func(string) string) error {
	addr := getenv("LISTEN_ADDR")
	if addr == "" {
		return usageError{"bench-echo-default: LISTEN_ADDR is required"}
	}
	type echoArgs struct {
		RoomToken string `json:"room_token"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Returns its arguments."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, echoArgs, error) {
			return nil, in, nil
		})
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.Handle("/mcp/echo", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// runBenchEcho is the hidden `taasky bench-echo`: the echo floor's server,
// the same Fiber app settings, adaptor and go-sdk handler as the service,
// and the same runtime settings (main sets them for every command). With
// DURABLE_DATABASE_URL (a scratch database) it also serves echo_commit,
// through a pool set up as the service's.
func runBenchEcho(ctx context.Context, getenv func(string) string) error {
	addr := getenv("LISTEN_ADDR")
	if addr == "" {
		return usageError{"bench-echo: LISTEN_ADDR is required"}
	}
	var commit func(context.Context) error
	if dsn := getenv("DURABLE_DATABASE_URL"); dsn != "" {
		pool, err := connect(ctx, "DURABLE_DATABASE_URL", dsn)
		if err != nil {
			return err
		}
		defer pool.Close()
		if err := bench.PrepareDurable(ctx, pool); err != nil {
			return err
		}
		commit = bench.DurableCall(pool)
	}
	web := fiber.New(fiber.Config{AppName: "taasky", DisableStartupMessage: true})
	web.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok\n") })
	newMetrics().mount(web) // the runtime's allocations, as the service exports them
	web.All("/mcp/echo", fiberhttp.Handler(bench.EchoHandler(commit)))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		_ = web.ShutdownWithTimeout(5 * time.Second)
	}()
	return serveHTTP(web, ln) // as serve serves Taasky: the floor pays what a call does
}

// parseSizes reads "1000,100000".
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > 10_000_000 {
			return nil, fmt.Errorf("%q is not a number of rooms from 1 to 10000000", part)
		}
		out = append(out, n)
	}
	return out, nil
}

// benchRooms is the service on the bench server's database and keys, for
// seeding rooms that server can read.
func benchRooms(ctx context.Context, dsn, secret string) (*app.Rooms, func(), error) {
	env := map[string]string{"DATABASE_URL": dsn, "SECRET_KEY": secret, "BASE_URL": "http://127.0.0.1", "OPEN_ROOMS_PER_ACCOUNT_MAX": "0"}
	cfg, err := loadConfig(func(k string) string { return env[k] }, config.RoleMigrate)
	if err != nil {
		return nil, nil, err
	}
	pool, err := openDatabase(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	if err := checkSecretKey(ctx, pool, cfg); err != nil {
		pool.Close()
		if errors.Is(err, app.ErrSecretKeyMismatch) {
			err = fmt.Errorf("%w (the bench uses SECRET_KEY, or a random key when it is unset: on a database an earlier run used, give that run's SECRET_KEY, or leave DATABASE_URL unset for a fresh database)", err)
		}
		return nil, nil, err
	}
	d := deps{cfg: cfg, pool: pool}
	if d.river, err = river.NewClient(riverpgxv5.New(pool), &river.Config{}); err != nil {
		pool.Close()
		return nil, nil, err
	}
	rooms, err := newRooms(d)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return rooms, pool.Close, nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
