package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/internal/pgtest"
)

func TestFindLocalPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	base, err := pgx.ParseConfig(pgtest.BaseDSN())
	if err != nil {
		t.Fatal(err)
	}
	server := fmt.Sprintf("host=%s port=%d user=%s", base.Host, base.Port, base.User)
	name := fmt.Sprintf("taasky_t_devfind_%d", os.Getpid())
	t.Cleanup(func() {
		admin, err := pgx.Connect(context.Background(), pgtest.BaseDSN())
		if err == nil {
			_, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			admin.Close(context.Background())
		}
	})
	candidates := []string{"host=127.0.0.1 port=1 user=nobody", server}
	for range 2 { // creates the database, then finds it
		dsn, err := findLocalPostgres(ctx, candidates, name)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connect to %q: %v", dsn, err)
		}
		var db string
		err = conn.QueryRow(ctx, "SELECT current_database()").Scan(&db)
		conn.Close(ctx)
		if err != nil || db != name {
			t.Fatalf("connected to %q (%v), want %q", db, err, name)
		}
	}
	if _, err := findLocalPostgres(ctx, candidates[:1], name); err == nil {
		t.Error("found a PostgreSQL where none answers")
	}
}

// TestDevPrivateDatabase runs taasky dev on a private PostgreSQL, or, as root,
// checks that it says what to do instead.
func TestDevPrivateDatabase(t *testing.T) {
	t.Parallel()
	e := env{
		"LISTEN_ADDR":     "127.0.0.1:0",
		"BASE_URL":        "http://127.0.0.1:8080",
		"XDG_CONFIG_HOME": t.TempDir(),
		"XDG_CACHE_HOME":  t.TempDir(),
	}
	if os.Geteuid() == 0 {
		// --db=private is refused as root in one line of its own: not
		// "no PostgreSQL answers", which is not the question (and may be
		// false: one answers in CI).
		_, _, err := runCmd(t, e, "dev", "--db", "private")
		if err == nil || err.Error() != privateRootRefusal || !strings.Contains(err.Error(), "--db=private") ||
			!strings.Contains(err.Error(), "DATABASE_URL") || strings.Contains(err.Error(), "no PostgreSQL answers") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("dev --db private as root: %v", err)
		}
		// Falling back to a private one (no local PostgreSQL) says so.
		if _, err := startPrivatePostgres(e.get, slog.New(slog.DiscardHandler), io.Discard, false); err == nil ||
			!strings.Contains(err.Error(), "no PostgreSQL answers") || !strings.Contains(err.Error(), "cannot start a private one while running as root") {
			t.Fatalf("a private PostgreSQL as root, none answering: %v", err)
		}
		return
	}
	if _, _, err := findPostgresBinaries(); err != nil {
		t.Skip(err)
	}
	p := start(t, e, "dev", "--db", "private")
	out := p.waitStdout(t, "Stop with Ctrl-C.")
	if !strings.Contains(out, "Database: private PostgreSQL") {
		t.Errorf("dev output:\n%s", out)
	}
	if status, body := get(t, "http://"+p.addr+"/readyz"); status != 200 {
		t.Errorf("/readyz = %d %q", status, body)
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestDevAnotherPortSameDatabase: taasky dev's embedded issuer is
// {BASE_URL}/dev-oidc, so running it again on the same database with
// another port changes the issuer of every login; the people it signed in
// before (the demo owners here) still sign in, as the same users.
func TestDevAnotherPortSameDatabase(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	settings := func(base string) string {
		t.Helper()
		_, resp, page := signIn(t, base, "/settings", "alice@example.test")
		if resp.StatusCode != 200 || resp.Request.URL.Path != "/settings" || !strings.Contains(page, "alice@example.test") {
			t.Fatalf("alice's sign-in at %s: %d %s\n%.500s", base, resp.StatusCode, resp.Request.URL, page)
		}
		return page
	}
	first := start(t, e, "dev")
	first.waitStdout(t, "Stop with Ctrl-C.")
	settings(e["BASE_URL"])
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	e["LISTEN_ADDR"], e["BASE_URL"] = addr, "http://"+addr
	second := start(t, e, "dev")
	second.waitStdout(t, "Stop with Ctrl-C.")
	settings(e["BASE_URL"])
}
