package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
)

// Options says what to run.
type Options struct {
	URL         string        // a running Taasky; empty: the bench starts one
	DatabaseURL string        // Taasky's database (accounts and agents are created there)
	PGBenchURL  string        // a scratch database for pgbench; empty: no pgbench
	SinkAddr    string        // where the SMTP sink listens (point the server's SMTP_URL at it with URL)
	Pairs       int           // agent pairs: 2×Pairs MCP clients, the calls in flight at once
	Inflight    int           // negotiations each pair keeps going at once (its agents never wait idle for a human)
	Duration    time.Duration // of each measured run
	SlotsShare  float64       // share of negotiations opened with slots (the rest: offer and counters)
	Counters    int           // counters before the approvals in the other negotiations
	Echo        bool          // measure the echo floor too
	SecretKey   string        // the started server's SECRET_KEY
	PprofAddr   string        // where the started server serves net/http/pprof (empty: nowhere)
	Out         io.Writer
}

// Report is what one run measured.
type Report struct {
	Moves, Reads, Agreed int64
	Elapsed              time.Duration
	Errors               int64
	FirstError           error
	Latency              *Latencies
	Server               Usage // CPU spent and peak RSS of the started server
	PostgresCPU          time.Duration
	Counted              counters // by the server during the run (its /metrics)
	Echo, PGBench        *Rate
	ReadAlone            *ReadVsEcho // negotiation_read with nothing else running, beside the echo floor
	EchoDefault          *Rate       // go-sdk's echo with default settings, for the floor's gain
	// echo_commit: the echo floor with pgbench -N's transaction in each call
	Durable *Rate
	Machine Use // the bench's clients and the machine during the moves
}

// Run starts what is needed, runs the pairs for the duration, and measures
// the floors, then prints the report; with scale, it measures the lists at
// scale on the same server.
func Run(ctx context.Context, o Options, scale *ScaleOptions) (*Report, error) {
	sink, err := StartSink(o.SinkAddr)
	if err != nil {
		return nil, fmt.Errorf("smtp sink: %w", err)
	}
	defer sink.Close()
	var server *Process
	base := o.URL
	if base == "" {
		addr, err := FreeAddr()
		if err != nil {
			return nil, err
		}
		base = "http://" + addr
		server, err = Start(ctx, addr, "/readyz", []string{
			"DATABASE_URL=" + o.DatabaseURL, "BASE_URL=" + base, "LISTEN_ADDR=" + addr,
			"SECRET_KEY=" + o.SecretKey, "SMTP_URL=smtp://" + sink.Addr,
			"OIDC_ISSUER=http://127.0.0.1:9", "OIDC_CLIENT_ID=bench", "OIDC_CLIENT_SECRET=bench",
			// The bench measures capacity: no rate limit, no pause between counters.
			"MCP_RATE_LIMIT=0", "WEB_RATE_LIMIT=0", "COUNTER_COOLDOWN=0s", "PPROF_ADDR=" + o.PprofAddr,
			"SHUTDOWN_GRACE=0", // no load balancer to tell: stop at once
		}, "serve")
		if err != nil {
			return nil, err
		}
		defer server.Stop()
	}
	pool, err := pgxpool.New(ctx, o.DatabaseURL)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	tr := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: time.Minute}
	lat := &Latencies{}
	// 2×Pairs clients: at most that many calls in flight, as the echo floor
	// and pgbench have; each pair runs Inflight negotiations (lanes) so
	// that its clients have work while a human is still reading an email.
	clients := make(gate, 2*o.Pairs)
	pairs, err := makePairs(ctx, app.NewAccounts(pool), base, o.Pairs*max(1, o.Inflight), tr, sink, lat, clients)
	if err != nil {
		return nil, err
	}
	rep := &Report{Latency: lat}
	var before Usage
	if server != nil {
		before, _ = server.Usage()
	}
	pg0 := PostgresCPU(ctx, pool)
	c0 := serverCounters(base)
	m0 := ReadMachine()
	start := time.Now()
	stop := start.Add(o.Duration)
	var wg sync.WaitGroup
	var moves, reads, agreed, errs atomic.Int64
	var firstErr error
	var once sync.Once
	for i, p := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(stop); n++ {
				slots := float64((n*7+i)%100) < o.SlotsShare*100
				r, err := p.Negotiate(ctx, slots, o.Counters, n*len(pairs)+i)
				moves.Add(int64(r.Moves))
				reads.Add(int64(r.Reads))
				if err != nil {
					errs.Add(1)
					once.Do(func() { firstErr = err })
					continue
				}
				agreed.Add(1)
			}
		}()
	}
	wg.Wait()
	rep.Elapsed = time.Since(start)
	rep.Machine = ReadMachine().Since(m0)
	rep.PostgresCPU = PostgresCPU(ctx, pool).Since(pg0)
	rep.Counted = serverCounters(base).since(c0)
	rep.Moves, rep.Reads, rep.Agreed, rep.Errors, rep.FirstError = moves.Load(), reads.Load(), agreed.Load(), errs.Load(), firstErr
	if server != nil {
		after, _ := server.Usage()
		rep.Server = Usage{CPU: after.CPU - before.CPU, RSSKiB: after.RSSKiB}
	}
	if o.Echo {
		if rep.ReadAlone, err = readsBesideEcho(ctx, o, tr, pairs, server); err != nil {
			fmt.Fprintf(o.Out, "reads beside the echo: %v\n", err)
		}
	}
	for _, p := range pairs {
		p.A.Close()
		p.B.Close()
	}
	if o.Echo {
		if rep.Echo, err = runEcho(ctx, o, tr, "echo", "", "bench-echo"); err != nil {
			fmt.Fprintf(o.Out, "echo floor: %v\n", err)
		}
		if rep.EchoDefault, err = runEcho(ctx, o, tr, "echo", "", "bench-echo-default", "GOGC=100"); err != nil {
			fmt.Fprintf(o.Out, "default echo: %v\n", err)
		}
		if o.PGBenchURL != "" {
			if rep.Durable, err = runEcho(ctx, o, tr, "echo_commit", o.PGBenchURL, "bench-echo"); err != nil {
				fmt.Fprintf(o.Out, "durable echo: %v\n", err)
			}
		}
	}
	if o.PGBenchURL != "" {
		r, err := PGBench(ctx, o.PGBenchURL, 2*o.Pairs, o.Duration)
		if err != nil {
			fmt.Fprintf(o.Out, "pgbench: %v\n", err)
		} else {
			rep.PGBench = &r
		}
	}
	rep.Print(o.Out, o)
	if scale != nil {
		o.URL = base
		if err := Scale(ctx, o, *scale); err != nil {
			return rep, fmt.Errorf("lists at scale: %w", err)
		}
	}
	return rep, nil
}

// runEcho starts an echo server (command, with env), has 2×pairs clients
// call its tool for the duration, and measures the server's CPU per call.
// With dsn, the server works on that database (DURABLE_DATABASE_URL: its
// echo_commit), PostgreSQL's CPU per call is measured too, and the tables
// it made are dropped afterwards, so that no autovacuum of them weighs on
// what runs next.
func runEcho(ctx context.Context, o Options, tr http.RoundTripper, tool, dsn, command string, env ...string) (*Rate, error) {
	if dsn != "" {
		env = append(env, "DURABLE_DATABASE_URL="+dsn)
	}
	p, addr, err := startEcho(ctx, command, env...)
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	var pool *pgxpool.Pool
	var pg PGCPU
	if dsn != "" {
		if pool, err = pgxpool.New(ctx, dsn); err != nil {
			return nil, err
		}
		defer pool.Close()
		defer func() { _ = DropDurable(ctx, pool) }()
		pg = PostgresCPU(ctx, pool)
	}
	before, _ := p.Usage()
	c0 := serverCounters("http://" + addr)
	m0 := ReadMachine()
	r, err := EchoLoad(ctx, "http://"+addr+"/mcp/echo", tool, 2*o.Pairs, o.Duration, tr)
	r.Machine = ReadMachine().Since(m0)
	after, _ := p.Usage()
	if r.Calls > 0 {
		r.ServerMS = float64((after.CPU - before.CPU).Microseconds()) / 1000 / float64(r.Calls)
		if c := serverCounters("http://" + addr).since(c0); c.Mallocs > 0 {
			r.Mallocs, r.AllocKiB = c.Mallocs/float64(r.Calls), c.AllocBytes/1024/float64(r.Calls)
		}
		if pool != nil {
			r.PostgresMS = float64(PostgresCPU(ctx, pool).Since(pg).Microseconds()) / 1000 / float64(r.Calls)
		}
	}
	return &r, err
}

// startEcho starts an echo server (command: bench-echo, or
// bench-echo-default) on a free address.
func startEcho(ctx context.Context, command string, env ...string) (*Process, string, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, "", err
	}
	p, err := Start(ctx, addr, "/healthz", append(env, "LISTEN_ADDR="+addr), command)
	return p, addr, err
}

// ReadVsEcho is negotiation_read with nothing else running against the
// echo floor, measured in alternating slices; and echo_view, an echo whose
// answer is a read's (EchoHandler), which tells what answering a few
// KB costs apart from reading the room.
type ReadVsEcho struct {
	Reads, Echo, EchoView Summary
	Rounds                []float64 // each round's read p50 ÷ echo p50, in order
	// Server CPU per call, ms: Taasky's per read, the echo server's per
	// echo and per echo_view (0 when unknown: a server the bench did not
	// start).
	ReadMS, EchoMS, EchoViewMS float64
}

// readRounds is how many slices of each readsBesideEcho alternates.
const readRounds = 5

// readsBesideEcho has the clients read the pairs' latest rooms with
// nothing else running, and the same number of clients call echo and
// echo_view, in alternating slices (reads, echo, echo_view, reads, …; up to
// 10 s of each in all), so that a drift of the machine (autovacuum after
// the moves, another process) weighs on all three alike.
func readsBesideEcho(ctx context.Context, o Options, tr http.RoundTripper, pairs []*Pair, server *Process) (*ReadVsEcho, error) {
	p, addr, err := startEcho(ctx, "bench-echo")
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	echo, err := connectEcho(ctx, "http://"+addr+"/mcp/echo", 2*o.Pairs, tr)
	defer closeAll(echo)
	if err != nil {
		return nil, err
	}
	slice := min(o.Duration, 10*time.Second) / readRounds
	all := &Latencies{}
	out := &ReadVsEcho{}
	var cpu [3]time.Duration // reads, echo, echo_view
	for range readRounds {
		u := usage(server)
		r := readFor(ctx, pairs, 2*o.Pairs, slice)
		cpu[0] += usage(server) - u
		all.Merge(r)
		e := &Latencies{}
		for i, tool := range []string{"echo", "echo_view"} {
			u := usage(p)
			if _, err := echoFor(ctx, echo, tool, slice, e); err != nil {
				return nil, err
			}
			cpu[1+i] += usage(p) - u
		}
		all.Merge(e)
		if rs, es := r.Get("negotiation_read"), e.Get("echo"); rs.N > 0 && es.P50 > 0 {
			out.Rounds = append(out.Rounds, float64(rs.P50)/float64(es.P50))
		}
	}
	out.Reads, out.Echo, out.EchoView = all.Get("negotiation_read"), all.Get("echo"), all.Get("echo_view")
	if server != nil && out.Reads.N > 0 && out.Echo.N > 0 && out.EchoView.N > 0 {
		perCall := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
		out.ReadMS, out.EchoMS, out.EchoViewMS = perCall(cpu[0], out.Reads.N), perCall(cpu[1], out.Echo.N), perCall(cpu[2], out.EchoView.N)
	}
	return out, nil
}

// readFor has clients read the pairs' latest rooms for d.
func readFor(ctx context.Context, pairs []*Pair, clients int, d time.Duration) *Latencies {
	lat := &Latencies{}
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := range clients {
		p := pairs[i/2%len(pairs)]
		agent, token := p.A, p.lastRoom[0]
		if i%2 == 1 {
			agent, token = p.B, p.lastRoom[1]
		}
		if token == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := agent.CallWith(ctx, lat, "negotiation_read", map[string]any{"room_token": token}, nil); err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return lat
}

// usage is p's CPU time so far (0 for no process).
func usage(p *Process) time.Duration {
	if p == nil {
		return 0
	}
	u, _ := p.Usage()
	return u.CPU
}

func makePairs(ctx context.Context, accounts *app.Accounts, base string, n int, tr http.RoundTripper, sink *Sink, lat *Latencies, clients gate) ([]*Pair, error) {
	run := randomHex(3)
	var pairs []*Pair
	for i := range n {
		p := &Pair{Sink: sink, Lat: lat, clients: clients}
		jar, _ := cookiejar.New(nil)
		p.Web = &http.Client{Transport: tr, Jar: jar, Timeout: 30 * time.Second}
		for _, side := range []string{"a", "b"} {
			slug := fmt.Sprintf("bench-%s-%s%d", run, side, i)
			email := slug + "@bench.test"
			if _, err := accounts.CreateAccount(ctx, slug, slug, email); err != nil {
				return nil, err
			}
			_, key, err := accounts.CreateAgent(ctx, slug, "agent", email)
			if err != nil {
				return nil, err
			}
			agent, err := Connect(ctx, base+"/mcp/"+slug, key.Key, tr, lat, clients)
			if err != nil {
				return nil, err
			}
			if side == "a" {
				p.A, p.EmailA = agent, email
			} else {
				p.B, p.EmailB = agent, email
			}
		}
		pairs = append(pairs, p)
	}
	return pairs, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Print writes the report, the floors and the ratios.
func (r *Report) Print(w io.Writer, o Options) {
	sec := r.Elapsed.Seconds()
	fmt.Fprintf(w, "\nTaasky bench: %d pairs (%d MCP clients), %d negotiations in flight per pair, %s, slots share %.0f%%, %d counters\n",
		o.Pairs, 2*o.Pairs, max(1, o.Inflight), r.Elapsed.Round(time.Millisecond), o.SlotsShare*100, o.Counters)
	fmt.Fprintf(w, "  moves:      %d (%.1f/s; MCP moves and the humans' one-tap answers)\n", r.Moves, float64(r.Moves)/sec)
	fmt.Fprintf(w, "  reads:      %d (%.1f/s)\n", r.Reads, float64(r.Reads)/sec)
	fmt.Fprintf(w, "  agreed:     %d negotiations (%.2f/s)\n", r.Agreed, float64(r.Agreed)/sec)
	fmt.Fprintf(w, "  errors:     %d", r.Errors)
	if r.FirstError != nil {
		fmt.Fprintf(w, " (first: %v)", r.FirstError)
	}
	fmt.Fprintln(w)
	names, sums := r.Latency.Summaries()
	for _, n := range names {
		fmt.Fprintf(w, "  %-30s %s\n", n, sums[n])
	}
	calls := r.Moves + r.Reads
	if r.Server.CPU > 0 && r.Moves > 0 {
		cpu := float64(r.Server.CPU.Microseconds()) / 1000
		fmt.Fprintf(w, "  server CPU: %.2f ms per move (its reads, jobs and mail included), %.2f ms per call (moves and reads), %s; peak RSS %d MiB\n",
			cpu/float64(r.Moves), cpu/float64(calls), perNegotiation(cpu, r.Agreed), r.Server.RSSKiB/1024)
	}
	if n := float64(calls); r.Counted.Mallocs > 0 && n > 0 {
		fmt.Fprintf(w, "  server allocations: %.0f per call, %.1f KiB per call (moves and reads; jobs and mail included)\n",
			r.Counted.Mallocs/n, r.Counted.AllocBytes/n/1024)
	}
	if r.Moves > 0 {
		pg := float64(r.PostgresCPU.Microseconds()) / 1000
		fmt.Fprintf(w, "  PostgreSQL CPU: %.3f ms per move (all the database's work: reads, jobs and mail included), %s\n", pg/float64(r.Moves), perNegotiation(pg, r.Agreed))
		if r.Counted.Statements > 0 {
			fmt.Fprintf(w, "  statements: %.2f per move (everything the server sent, reads and jobs included)\n", r.Counted.Statements/float64(r.Moves))
		}
	}
	if r.Moves > 0 && r.Machine.Busy > 0 {
		fmt.Fprintf(w, "  the bench's clients: %.2f ms of CPU per move (MCP clients, SMTP sink, pages); the machine %s\n",
			r.Machine.perCall(r.Moves), busy(r.Machine))
	}
	mcpCalls := float64(calls-countOf(sums, "onetap_post")-countOf(sums, "onetap_get")) / sec
	if e := r.Echo; e != nil {
		fmt.Fprintf(w, "echo floor: %.0f calls/s at %d clients, p50 %s, server CPU %.2f ms per call", e.PerSec, 2*o.Pairs, round(e.Latency.P50), e.ServerMS)
		if e.Mallocs > 0 {
			fmt.Fprintf(w, ", %.0f allocations and %.1f KiB per call", e.Mallocs, e.AllocKiB)
		}
		fmt.Fprintf(w, "; clients %.2f ms per call, the machine %s\n", e.Machine.perCall(e.Calls), busy(e.Machine))
		if d := r.EchoDefault; d != nil && d.PerSec > 0 {
			fmt.Fprintf(w, "  go-sdk's echo, default settings: %.0f calls/s, p50 %s, server CPU %.2f ms per call; Taasky's floor ÷ it = %.2f\n",
				d.PerSec, round(d.Latency.P50), d.ServerMS, e.PerSec/d.PerSec)
		}
		fmt.Fprintf(w, "  ratio: MCP calls/s ÷ echo calls/s = %.2f; moves/s ÷ echo = %.2f\n", mcpCalls/e.PerSec, float64(r.Moves)/sec/e.PerSec)
		if d := r.Durable; d != nil && d.PerSec > 0 {
			fmt.Fprintf(w, "  durable echo (echo_commit: the echo, and pgbench -N's transaction in each call): %.0f calls/s, p50 %s, server CPU %.2f ms and PostgreSQL CPU %.3f ms per call; clients %.2f ms per call, the machine %s\n",
				d.PerSec, round(d.Latency.P50), d.ServerMS, d.PostgresMS, d.Machine.perCall(d.Calls), busy(d.Machine))
			fmt.Fprintf(w, "  ratio: durable echo ÷ echo = %.2f; moves/s ÷ durable echo = %.2f\n", d.PerSec/e.PerSec, float64(r.Moves)/sec/d.PerSec)
		}
		if rd := sums["negotiation_read"]; rd.N > 0 && e.Latency.P50 > 0 {
			fmt.Fprintf(w, "  ratio: negotiation_read p50 ÷ echo p50 = %.2f among the moves\n", float64(rd.P50)/float64(e.Latency.P50))
		}
		if ra := r.ReadAlone; ra != nil && len(ra.Rounds) > 0 && ra.Echo.P50 > 0 && ra.EchoView.P50 > 0 {
			rounds := slices.Sorted(slices.Values(ra.Rounds))
			fmt.Fprintf(w, "  ratio: negotiation_read p50 ÷ echo p50, alone, in %d alternating slices each = %.2f (by slice %.2f–%.2f, median %.2f)\n",
				len(ra.Rounds), float64(ra.Reads.P50)/float64(ra.Echo.P50), rounds[0], rounds[len(rounds)-1], rounds[len(rounds)/2])
			fmt.Fprintf(w, "    of which answering a read's %d bytes (echo_view p50 ÷ echo p50) = %.2f, and the rest (read p50 ÷ echo_view p50) = %.2f\n",
				len(sampleView), float64(ra.EchoView.P50)/float64(ra.Echo.P50), float64(ra.Reads.P50)/float64(ra.EchoView.P50))
			fmt.Fprintf(w, "    p50 / p99: reads %s / %s, echo %s / %s, echo_view %s / %s\n", round(ra.Reads.P50), round(ra.Reads.P99),
				round(ra.Echo.P50), round(ra.Echo.P99), round(ra.EchoView.P50), round(ra.EchoView.P99))
			if ra.ReadMS > 0 {
				fmt.Fprintf(w, "    server CPU per call: %.2f ms per read, %.2f per echo, %.2f per echo_view\n", ra.ReadMS, ra.EchoMS, ra.EchoViewMS)
			}
		}
	}
	if p := r.PGBench; p != nil {
		fmt.Fprintf(w, "pgbench -N: %.0f tps at %d clients, PostgreSQL CPU %.3f ms per transaction\n", p.PerSec, 2*o.Pairs, p.ServerMS)
		if r.Moves > 0 && p.ServerMS > 0 {
			fmt.Fprintf(w, "  ratio: PostgreSQL CPU per move ÷ per pgbench transaction = %.2f\n", float64(r.PostgresCPU.Microseconds())/1000/float64(r.Moves)/p.ServerMS)
		}
	}
}

// busy says how busy the machine was: near 100 %, the CPU bounds the
// rate; well below, something else does (a commit's flush, the clients'
// count).
func busy(u Use) string { return fmt.Sprintf("%.0f %% busy", u.Busy*100) }

func countOf(s map[string]Summary, name string) int64 { return int64(s[name].N) }

// counters are what the server counts in /metrics that the report divides
// by the moves or the calls.
type counters struct {
	Statements float64 // SQL statements sent (taasky_db_statements_total)
	Mallocs    float64 // heap objects allocated (go_memstats_mallocs_total)
	AllocBytes float64 // bytes allocated on the heap (go_memstats_alloc_bytes_total)
}

func (c counters) since(before counters) counters {
	return counters{c.Statements - before.Statements, c.Mallocs - before.Mallocs, c.AllocBytes - before.AllocBytes}
}

// serverCounters reads the server's counters (zeros for those it does not
// export, or when it cannot be reached).
func serverCounters(base string) counters {
	m := serverMetrics(base)
	return counters{m["taasky_db_statements_total"], m["go_memstats_mallocs_total"], m["go_memstats_alloc_bytes_total"]}
}

// metricLine is a sample without labels in Prometheus's text format.
var metricLine = regexp.MustCompile(`(?m)^([a-z_]+) ([0-9.e+-]+)$`)

// serverMetrics reads the server's samples without labels from /metrics, by
// name (none when it cannot be reached).
func serverMetrics(base string) map[string]float64 {
	out := map[string]float64{}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, m := range metricLine.FindAllSubmatch(b, -1) {
		if v, err := strconv.ParseFloat(string(m[2]), 64); err == nil {
			out[string(m[1])] = v
		}
	}
	return out
}

// perNegotiation says ms per agreed negotiation. Runs of different
// --counters give a counter's own cost: the difference of their
// per-negotiation figures over the difference of their moves per
// negotiation (docs/performance-history.md, "A counter, and the rest of
// a negotiation").
func perNegotiation(ms float64, agreed int64) string {
	if agreed == 0 {
		return "no negotiation agreed"
	}
	return fmt.Sprintf("%.1f ms per agreed negotiation", ms/float64(agreed))
}
