package bench

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestDurableEcho has a go-sdk client call echo_commit over HTTP: each call
// commits pgbench -N's transaction (a balance changed, a history row), and
// the plain echo beside it touches nothing.
func TestDurableEcho(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.NewEmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := PrepareDurable(ctx, pool); err != nil {
		t.Fatal(err)
	}
	url := serveEcho(t, EchoHandler(DurableCall(pool)))
	a, err := Connect(ctx, url, "echo", http.DefaultTransport, &Latencies{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	for range 3 {
		var out echoArgs
		if err := a.Call(ctx, "echo_commit", map[string]any{"room_token": "rt_x"}, &out); err != nil || out.RoomToken != "rt_x" {
			t.Fatalf("echo_commit: %v, %+v", err, out)
		}
	}
	if err := a.Call(ctx, "echo", map[string]any{"room_token": "rt_x"}, nil); err != nil {
		t.Fatal(err)
	}
	var rows, accounts int
	var moved, logged int64
	err = pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM echo_history), (SELECT coalesce(sum(delta), 0) FROM echo_history),
		(SELECT count(*) FROM echo_accounts), (SELECT sum(abalance) FROM echo_accounts)`).Scan(&rows, &logged, &accounts, &moved)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 3 || accounts != durableAccounts || moved != logged {
		t.Errorf("after 3 calls: %d history rows of %d in all, %d accounts whose balances moved %d", rows, logged, accounts, moved)
	}

	// Prepared again (the next run), the tables start afresh.
	if err := PrepareDurable(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM echo_history`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("history after PrepareDurable: %d rows, %v", rows, err)
	}

	// Dropped after the run, nothing is left for autovacuum.
	if err := DropDurable(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE tablename LIKE 'echo_%'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("after DropDurable: %d tables, %v", left, err)
	}

	// Without a transaction to commit, the echo server has no echo_commit.
	b, err := Connect(ctx, serveEcho(t, EchoHandler(nil)), "echo", http.DefaultTransport, &Latencies{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if err := b.Call(ctx, "echo_commit", map[string]any{"room_token": "rt_x"}, nil); err == nil {
		t.Error("echo_commit answered on an echo server without a database")
	}
}

// serveEcho serves an echo server's MCP endpoint on 127.0.0.1 until the
// test ends, and returns its URL.
func serveEcho(t *testing.T, echo http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: echo, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp/echo"
}
