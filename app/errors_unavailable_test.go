package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestUnavailable: a database that is not there, one that goes away
// mid-session, and one shutting down are "retry"; a refusal from a
// database that answers is not.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = pgx.Connect(ctx, "postgres://postgres@"+addr+"/x?sslmode=disable&connect_timeout=2")
	if !Unavailable(fmt.Errorf("read room: %w", err)) {
		t.Errorf("no server at all: %v; want unavailable", err)
	}

	conn, err := pgx.Connect(ctx, pgtest.NewDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `SELECT 1/0`)
	if err == nil || Unavailable(err) {
		t.Errorf("division by zero: %v; want a refusal, not unavailable", err)
	}
	var pid uint32
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(ctx, pgtest.NewDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if _, err := other.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `SELECT 1`)
	if !Unavailable(fmt.Errorf("move: %w", err)) {
		t.Errorf("the session terminated by the server: %v; want unavailable", err)
	}
	for _, code := range []string{"57P01", "57P03", "08006", "25006"} {
		if !Unavailable(&pgconn.PgError{Code: code}) {
			t.Errorf("SQLSTATE %s: want unavailable", code)
		}
	}
	for _, e := range []error{&pgconn.PgError{Code: "23505"}, &pgconn.PgError{Code: "40001"}, Errorf(ErrInvalid, "x"), errors.New("boom")} {
		if Unavailable(e) {
			t.Errorf("%v: want not unavailable", e)
		}
	}
}

// TestTimedOutIsRetry: a statement PostgreSQL cancels at the operator's
// statement_timeout, or at a lock_timeout while another session holds the
// lock, is "retry later", logged as a warning; a statement PostgreSQL
// refuses for its content is not.
func TestTimedOutIsRetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SET LOCAL statement_timeout = '50ms'`); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, `SELECT pg_sleep(5)`)
	if !TimedOut(fmt.Errorf("read room: %w", err)) || !RetryLater(err) {
		t.Errorf("a statement past statement_timeout: %v; want timed out, retry later", err)
	}
	if level, _ := RetryLogged(err); level != slog.LevelError {
		t.Errorf("a statement past statement_timeout is logged at %v, want ERROR", level)
	}
	if !RetryLater(&pgconn.PgError{Code: "55P03"}) {
		t.Error("lock_not_available (lock_timeout): want retry later")
	}
	for _, e := range []error{&pgconn.PgError{Code: "22012"}, &pgconn.PgError{Code: "23505"}, errors.New("boom")} {
		if TimedOut(e) || RetryLater(e) {
			t.Errorf("%v: want neither timed out nor retry later", e)
		}
	}
}
