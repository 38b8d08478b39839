package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Rate is a throughput measured over a run.
type Rate struct {
	Calls   int64
	Elapsed time.Duration
	PerSec  float64
	Latency Summary
	// CPU per call, ms (when known): the server's; for pgbench, PostgreSQL's
	ServerMS float64
	// PostgreSQL's CPU per call, ms, behind an echo server that works on
	// the database (echo_commit)
	PostgresMS float64
	// the server's heap allocations per call, and their KiB (when it
	// exports them)
	Mallocs, AllocKiB float64
	Machine           Use // the bench's clients and the machine meanwhile
}

// EchoLoad has `clients` go-sdk sessions call an echo server's tool as fast
// as they can for d: with echo, the MCP stack's own ceiling on this
// machine; with echo_commit, a durable call's.
func EchoLoad(ctx context.Context, url, tool string, clients int, d time.Duration, tr http.RoundTripper) (Rate, error) {
	agents, err := connectEcho(ctx, url, clients, tr)
	defer closeAll(agents)
	if err != nil {
		return Rate{}, err
	}
	return echoFor(ctx, agents, tool, d, &Latencies{})
}

func connectEcho(ctx context.Context, url string, clients int, tr http.RoundTripper) ([]*Agent, error) {
	agents := make([]*Agent, 0, clients)
	for range clients {
		a, err := Connect(ctx, url, "echo", tr, &Latencies{}, nil)
		if err != nil {
			return agents, err
		}
		agents = append(agents, a)
	}
	return agents, nil
}

func closeAll(agents []*Agent) {
	for _, a := range agents {
		a.Close()
	}
}

// echoFor has the agents call an echo server's tool (echo, echo_view or echo_commit)
// as fast as they can for d, recording the latencies in lat.
func echoFor(ctx context.Context, agents []*Agent, tool string, d time.Duration, lat *Latencies) (Rate, error) {
	var calls atomic.Int64
	var firstErr error
	var once sync.Once
	start := time.Now()
	stop := start.Add(d)
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := a.CallWith(ctx, lat, tool, map[string]any{"room_token": "rt_echo"}, nil); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	return Rate{Calls: calls.Load(), Elapsed: el, PerSec: float64(calls.Load()) / el.Seconds(), Latency: lat.Get(tool)}, firstErr
}

var tpsLine = regexp.MustCompile(`tps = ([0-9.]+)`)

// PGBench runs pgbench -N (the simple-update, durable-commit transaction)
// against dsn with `clients` clients for d, after initializing its tables.
// It returns the transactions per second and PostgreSQL's CPU per
// transaction. It is skipped (err) when pgbench is not installed.
func PGBench(ctx context.Context, dsn string, clients int, d time.Duration) (Rate, error) {
	if _, err := exec.LookPath("pgbench"); err != nil {
		return Rate{}, fmt.Errorf("pgbench is not installed (Debian: apt-get install postgresql-contrib or postgresql-client)")
	}
	if out, err := exec.CommandContext(ctx, "pgbench", "-i", "-q", "-s", "1", dsn).CombinedOutput(); err != nil {
		return Rate{}, fmt.Errorf("pgbench -i: %v: %s", err, out)
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return Rate{}, err
	}
	defer pool.Close()
	// pgbench's backends end with it, so their CPU is read while it runs:
	// from a second in to a second before its end.
	secs := max(3, int(d.Seconds()))
	cmd := exec.CommandContext(ctx, "pgbench", "-N", "-n", "-c", strconv.Itoa(clients), "-j", "2",
		"-T", strconv.Itoa(secs), dsn)
	var outBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &outBuf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Rate{}, err
	}
	time.Sleep(time.Second)
	cpu0, t0 := PostgresCPU(ctx, pool), time.Now()
	time.Sleep(time.Duration(secs-2) * time.Second)
	cpu, window := PostgresCPU(ctx, pool).Since(cpu0), time.Since(t0)
	err = cmd.Wait()
	el := time.Since(start)
	out := outBuf.Bytes()
	if err != nil {
		return Rate{}, fmt.Errorf("pgbench: %v: %s", err, out)
	}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return Rate{}, fmt.Errorf("pgbench printed no tps: %s", out)
	}
	tps, _ := strconv.ParseFloat(string(m[1]), 64)
	r := Rate{Calls: int64(tps * el.Seconds()), Elapsed: el, PerSec: tps}
	if inWindow := tps * window.Seconds(); inWindow > 0 {
		r.ServerMS = float64(cpu.Microseconds()) / 1000 / inWindow
	}
	return r, nil
}
