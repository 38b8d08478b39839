package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestMetrics: /metrics exports the runtime and the statements sent.
func TestMetrics(t *testing.T) {
	t.Parallel()
	p := start(t, env{
		"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret, "OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret",
	}, "serve")
	status, body := get(t, "http://"+p.addr+"/metrics")
	for _, want := range []string{"taasky_db_statements_total ", "go_memstats_alloc_bytes_total", "process_cpu_seconds_total"} {
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics: %d, no %s", status, want)
		}
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestMetricsCountBatchedStatements: a batch is one round trip but each of
// its statements counts.
func TestMetricsCountBatchedStatements(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	pool, err := openDatabase(context.Background(), pgtest.NewDSN(t), m)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	before := m.statements.Load() // the migration's
	var b pgx.Batch
	for range 3 {
		b.Queue(`SELECT 1`)
	}
	if err := pool.SendBatch(context.Background(), &b).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `SELECT 1`); err != nil {
		t.Fatal(err)
	}
	if n := m.statements.Load() - before; n != 4 {
		t.Errorf("statements counted: %d, want 4", n)
	}
}
