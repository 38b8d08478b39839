package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestConnectSettings: the service's connections run their statements on
// generic plans and never JIT-compile them. At ten million rooms a list's
// generic plan passes jit_above_cost, and with JIT on every call of every
// list, for the smallest tenant too, paid 15–45 ms of compilation for rows
// read in under one (docs/performance.md, "Ten million rooms"). The plans
// here are made as costly as those (jit_above_cost = 0) and must show no
// JIT; a pool whose DSN asks for JIT shows it, where the server has JIT,
// so that the check could see it.
func TestConnectSettings(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.NewDSN(t)
	pool, err := connect(ctx, "DATABASE_URL", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for name, want := range map[string]string{"jit": "off", "plan_cache_mode": "force_generic_plan"} {
		var got string
		if err := pool.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("the service's connections run with %s = %s, want %s", name, got, want)
		}
	}
	if plan := costlyPlan(t, ctx, pool); strings.Contains(plan, `"JIT"`) {
		t.Errorf("the service's statements are JIT-compiled:\n%s", plan)
	}

	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	on, err := connect(ctx, "DATABASE_URL", dsn+sep+"jit=on")
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	var available bool // false where jit is off, whatever the server has
	if err := on.QueryRow(ctx, `SELECT pg_jit_available()`).Scan(&available); err != nil {
		t.Fatal(err)
	}
	if !available {
		t.Log("this PostgreSQL has no JIT: the plan could not show it anyway")
		return
	}
	if plan := costlyPlan(t, ctx, on); !strings.Contains(plan, `"JIT"`) {
		t.Errorf("with jit=on in the DSN, the plan shows no JIT:\n%s", plan)
	}
}

// costlyPlan runs a read of rooms on a connection of the pool with every
// plan above jit_above_cost, and returns its EXPLAIN (ANALYZE).
func costlyPlan(t *testing.T, ctx context.Context, pool *pgxpool.Pool) string {
	t.Helper()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET jit_above_cost = 0`); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = conn.Exec(ctx, `RESET jit_above_cost`) }()
	var plan string
	if err := conn.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM rooms WHERE round > 0`).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	return plan
}
