package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestConnectionsRunOut: on a PostgreSQL whose max_connections are all
// taken (SQLSTATE 53300, "remaining connection slots are reserved"), a
// process starting says so and what to change, a running one counts each
// refused connection (taasky_db_connections_refused_total) and logs one
// line saying what it means, /readyz says why it is not ready, a request
// that needed a connection is answered 503 with Retry-After as in an
// outage, and all of it recovers once connections are free again. Before,
// the start-up error was pgx's alone, nothing counted the refusals, the
// only lines were each request's own ("the database did not answer"), and
// /readyz said "database unreachable".
func TestConnectionsRunOut(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	// 8 connections, 3 of them kept for superusers: 5 for taasky.
	srv := pgtest.StartServer(t, "max_connections = 8\nsuperuser_reserved_connections = 3")
	srv.Exec("postgres", `CREATE ROLE taasky LOGIN`, `CREATE DATABASE taasky OWNER taasky`)
	srv.Exec("taasky", `ALTER SCHEMA public OWNER TO taasky`)
	dsn := srv.DSN("taasky", "taasky")

	var logs syncBuffer
	m := newMetrics()
	m.log = slog.New(slog.NewJSONHandler(&logs, nil))
	pool, err := openDatabase(ctx, dsn, m)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// Keep one connection in the pool (the one a request will find taken
	// by another) and close the others, then take every free slot.
	idleConns := pool.AcquireAllIdle(ctx)
	for _, c := range idleConns[1:] {
		c.Hijack().Close(ctx)
	}
	idleConns[0].Release()
	var held []*pgx.Conn
	defer func() {
		for _, c := range held {
			c.Close(context.Background())
		}
	}()
	for {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			if !app.TooManyConnections(err) {
				t.Fatalf("connecting until PostgreSQL refuses: %v", err)
			}
			break
		}
		held = append(held, c)
		if len(held) > 10 {
			t.Fatal("PostgreSQL never refused a connection")
		}
	}

	// A process starting now.
	_, err = openDatabase(ctx, dsn)
	if err == nil {
		t.Fatal("a process started with no connection free")
	}
	if msg := err.Error(); !strings.Contains(msg, "max_connections are all taken") || !strings.Contains(msg, "pool_max_conns") || strings.Contains(msg, "\n") {
		t.Errorf("the start-up error does not say, in one line, that max_connections are taken and what to change: %s", msg)
	}

	// A running process whose pool needs one more connection.
	idle, err := pool.Acquire(ctx) // the one left, taken by a request
	if err != nil {
		t.Fatal(err)
	}
	a := fiber.New(fiber.Config{ErrorHandler: errorHandler(slog.New(slog.NewJSONHandler(io.Discard, nil)))})
	a.Get("/needs-a-connection", func(c *fiber.Ctx) error {
		var one int
		return pool.QueryRow(c.UserContext(), `SELECT 1`).Scan(&one)
	})
	h := &health{pool: pool, log: slog.New(slog.NewJSONHandler(io.Discard, nil))}
	a.Get("/readyz", h.ready)
	for range 2 { // one line for both refusals
		status, header, _ := getPath(t, a, "/needs-a-connection")
		if status != fiber.StatusServiceUnavailable || header.Get("Retry-After") == "" {
			t.Errorf("a request meeting no free connection: %d, Retry-After %q; want 503 with Retry-After", status, header.Get("Retry-After"))
		}
	}
	status, _, body := getPath(t, a, "/readyz")
	if status != fiber.StatusServiceUnavailable || !strings.Contains(body, "max_connections") {
		t.Errorf("/readyz with no connection to be had: %d %q; want 503 saying max_connections are taken", status, body)
	}
	if got := m.refused.Load(); got < 3 {
		t.Errorf("taasky_db_connections_refused_total = %d after 3 refused connections", got)
	}
	var lines int
	for line := range strings.Lines(logs.String()) {
		var rec struct{ Msg string }
		if json.Unmarshal([]byte(line), &rec) == nil && strings.Contains(rec.Msg, "PostgreSQL refuses new connections") {
			lines++
			if !strings.Contains(rec.Msg, "max_connections") || !strings.Contains(rec.Msg, "pool_max_conns") {
				t.Errorf("the line does not say what to change: %s", line)
			}
		}
	}
	if lines != 1 {
		t.Errorf("%d lines say PostgreSQL refuses connections, want 1 for refusals this close together:\n%s", lines, logs.String())
	}

	// Connections free again: the pool and /readyz recover by themselves.
	idle.Release()
	for _, c := range held {
		c.Close(ctx)
	}
	held = nil
	for range 3 {
		if status, _, _ := getPath(t, a, "/needs-a-connection"); status != fiber.StatusOK {
			t.Errorf("with connections free again a request is answered %d", status)
		}
	}
	if status, _, body := getPath(t, a, "/readyz"); status != fiber.StatusOK {
		t.Errorf("with connections free again /readyz answers %d %q", status, body)
	}
}

func getPath(t *testing.T, a *fiber.App, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := a.Test(httptest.NewRequest("GET", path, nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestStartWithOneConnection: a DATABASE_URL whose pool_max_conns is 1
// (a one-off command on a crowded PostgreSQL, as `taasky migrate` or
// `check`) starts. The start's check that connections are sessions of
// their own (app.SessionsShared) took a second connection from the pool
// while holding the first, and waited for it forever: `taasky migrate`
// hung with no word until killed.
func TestStartWithOneConnection(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang, not a measure
	defer cancel()
	dsn := pgtest.NewDSN(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	pool, err := openDatabase(ctx, dsn+sep+"pool_max_conns=1")
	if err != nil {
		t.Fatalf("start with pool_max_conns=1: %v", err)
	}
	defer pool.Close()
	if n := pool.Stat().MaxConns(); n != 1 {
		t.Fatalf("the pool holds %d connections, want DATABASE_URL's 1", n)
	}
	shared, err := app.SessionsShared(ctx, pool)
	if err != nil || shared {
		t.Errorf("on PostgreSQL itself: sessions shared %v, %v; want false", shared, err)
	}
}
