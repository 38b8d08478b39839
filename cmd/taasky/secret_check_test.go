package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestSecretKeyIsTheInstallations: a process started with another
// SECRET_KEY than the one the database's first process used (a worker-only
// `serve --web=false`, `dev`, `check`, `account delete`, `bench`) refuses to start
// with one line naming SECRET_KEY, instead of joining and failing every
// job whose secrets it cannot open; the first key still starts.
func TestSecretKeyIsTheInstallations(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDSN(t)
	first := start(t, env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret}, "serve", "--web=false")
	other := env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": "another-key-another-key-another-key"}
	refused := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "SECRET_KEY") || !strings.Contains(err.Error(), "same SECRET_KEY") ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("%s with another SECRET_KEY: %v, want one line naming SECRET_KEY", what, err)
		}
	}
	refused("serve --web=false", startOrRefuse(t, other, "serve", "--web=false"))
	err := startOrRefuse(t, other, "dev")
	refused("dev", err)
	if err == nil || !strings.Contains(err.Error(), "or drop that database to start over") {
		t.Errorf("dev with another key: %v, want how to go on", err)
	}
	_, _, err = runCmd(t, other, "check")
	refused("check", err)
	_, _, err = runCmd(t, other, "account", "delete", "--account", "nobody", "--confirm", "nobody")
	refused("account delete", err)
	// The bench on this database, with a key of its own choosing (none
	// given) or another: refused before it starts a server, with its hint.
	for _, key := range []string{"", other["SECRET_KEY"]} {
		_, _, err = runCmd(t, env{"DATABASE_URL": dsn, "SECRET_KEY": key}, "bench", "--pairs", "1", "--duration", "1s", "--echo=false", "--pgbench=false")
		refused("bench", err)
		if err == nil || !strings.Contains(err.Error(), "that run's SECRET_KEY") {
			t.Errorf("bench with SECRET_KEY %q: %v, want the bench's hint", key, err)
		}
	}

	if err := first.stop(); err != nil {
		t.Fatal(err)
	}
	// The installation's key starts again, in another role.
	if out, _, err := runCmd(t, env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret}, "check"); err != nil {
		t.Fatalf("check with the installation's key: %v\n%s", err, out)
	}
}

// startOrRefuse runs taasky until it returns (its error) or listens (then
// it is stopped, and the error says it started).
func startOrRefuse(t *testing.T, e env, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p := &process{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, e.get, p.stdout, p.stderr) }()
	for {
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Millisecond):
		}
		if listenLog.MatchString(p.stderr.String()) {
			cancel()
			<-done
			return errors.New("it started")
		}
	}
}
