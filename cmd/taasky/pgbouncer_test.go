package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// startPgBouncer runs a PgBouncer of the test's own in mode (session or
// transaction) in front of the server of dsn, with its defaults but for
// the pool's mode (no ignore_startup_parameters), and returns dsn through
// it. It skips the test where PgBouncer is not installed, but in CI,
// whose .ci/run installs it.
func startPgBouncer(t *testing.T, dsn, mode string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil && os.Getenv("CI") != "" {
		t.Fatalf("PgBouncer is not installed: .ci/run must install it (apt-get install pgbouncer): %v", err)
	}
	if err != nil {
		t.Skipf("PgBouncer is not installed (apt-get install pgbouncer): %v", err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parent is the test's own, which the postgres user
	// PgBouncer runs as (when the test runs as root) cannot enter.
	dir, err := os.MkdirTemp("", "taasky-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	port := pgtest.FreePort(t)
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = %s
max_client_conn = 200
default_pool_size = 60
logfile = %s
`, u.Hostname(), u.Port(), port, filepath.Join(dir, "users.txt"), mode, filepath.Join(dir, "pgbouncer.log"))
	for name, body := range map[string]string{"pgbouncer.ini": ini, "users.txt": fmt.Sprintf("%q \"\"\n", u.User.Username())} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pgtest.Chown(t, dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := pgtest.AsPostgres(bin, filepath.Join(dir, "pgbouncer.ini"))
	// Its own process group, so that the test ends PgBouncer and not only
	// runuser; its output in a file, which holds no pipe open.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := os.Create(filepath.Join(dir, "output"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			o, _ := os.ReadFile(filepath.Join(dir, "output"))
			b, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			t.Logf("pgbouncer's output:\n%s\npgbouncer.log:\n%s", o, b)
		}
	})
	u.Host = fmt.Sprintf("127.0.0.1:%d", port)
	through := u.String()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		c, err := pgx.Connect(ctx, through)
		cancel()
		if err == nil {
			c.Close(t.Context())
			return through
		}
		if time.Now().After(deadline) {
			t.Fatalf("PgBouncer does not answer 30 s after its start: %v", err)
		}
	}
}

// TestPgBouncerSessionMode: behind PgBouncer in session mode, with its
// defaults, a process starts (migrations and their lock, River's), its
// connections run with the service's settings, and its LISTEN hears
// notifications. Before, PgBouncer refused every connection at start:
// "unsupported startup parameter: jit" (the settings were sent as startup
// parameters; listing them in ignore_startup_parameters let them through
// unset, and then the migrations' lock_timeout stopped it the same way).
func TestPgBouncerSessionMode(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := startPgBouncer(t, pgtest.NewEmptyDSN(t), "session")
	pool, err := openDatabase(ctx, dsn)
	if err != nil {
		t.Fatalf("a process behind PgBouncer in session mode: %v", err)
	}
	defer pool.Close()
	for name, want := range map[string]string{"jit": "off", "max_parallel_workers_per_gather": "0", "plan_cache_mode": "force_generic_plan"} {
		var got string
		if err := pool.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("behind PgBouncer the connections run with %s = %s, want %s", name, got, want)
		}
	}

	heard := make(chan string, 1)
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	go app.Listen(lctx, pool.Config().ConnConfig.Copy(), slog.New(slog.DiscardHandler), app.Channel{Name: "pool21_test",
		Notified: func(p string) {
			select {
			case heard <- p:
			default:
			}
		}})
	// Notify until heard: the listener may not listen yet.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := pool.Exec(ctx, `SELECT pg_notify('pool21_test', 'through pgbouncer')`); err != nil {
			t.Fatal(err)
		}
		select {
		case p := <-heard:
			if p != "through pgbouncer" {
				t.Errorf("heard %q", p)
			}
			return
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("the listener behind PgBouncer never heard a notification")
		}
	}
}

// TestPgBouncerTransactionMode: behind PgBouncer in transaction mode,
// where sessions are lent per transaction, a process refuses to start,
// saying why and what to do, before anything runs there. Before, the
// migrations stopped it with `prepared statement "stmtcache_…" already
// exists`, and a worker that got past them started, failed its jobs the
// same way and held no lease of its own.
func TestPgBouncerTransactionMode(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := startPgBouncer(t, pgtest.NewEmptyDSN(t), "transaction")
	pool, err := openDatabase(ctx, dsn)
	if err == nil {
		pool.Close()
		t.Fatal("a process started behind PgBouncer in transaction mode")
	}
	if !errors.Is(err, errSessionsShared) {
		t.Errorf("behind PgBouncer in transaction mode the start fails with %q, want %q", err, errSessionsShared)
	}
	if msg := err.Error(); !strings.Contains(msg, "session mode") || strings.Contains(msg, "\n") {
		t.Errorf("the refusal does not say in one line what to do: %s", msg)
	}
}
