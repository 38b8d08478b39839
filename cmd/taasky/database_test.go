package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestConnectSettings: the service's connections run their statements on
// generic plans, never JIT-compiled nor shared among parallel workers. At
// millions of rooms a list's generic plan looked costly enough for both,
// and every call of every list, for the smallest tenant too, paid the
// compilation and the workers' start (docs/performance-history.md, "Ten million
// rooms"). The plan here is made to look as costly (jit_above_cost and the
// parallel costs at 0) and must show neither; a pool whose DSN asks for
// them shows them, so that the check could see them.
func TestConnectSettings(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.NewDSN(t)
	pool, err := connect(ctx, "DATABASE_URL", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for name, want := range map[string]string{"jit": "off", "max_parallel_workers_per_gather": "0",
		"plan_cache_mode": "force_generic_plan"} {
		var got string
		if err := pool.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("the service's connections run with %s = %s, want %s", name, got, want)
		}
	}
	plan := costlyPlan(t, ctx, pool)
	for _, node := range []string{`"JIT"`, `"Gather"`} {
		if strings.Contains(plan, node) {
			t.Errorf("the service's plan shows %s:\n%s", node, plan)
		}
	}

	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	on, err := connect(ctx, "DATABASE_URL", dsn+sep+"jit=on&max_parallel_workers_per_gather=2")
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	plan = costlyPlan(t, ctx, on)
	if !strings.Contains(plan, `"Gather"`) {
		t.Errorf("with parallel workers allowed in the DSN, the plan shows no Gather:\n%s", plan)
	}
	var jit bool // false where the server has no JIT
	if err := on.QueryRow(ctx, `SELECT pg_jit_available()`).Scan(&jit); err != nil {
		t.Fatal(err)
	}
	if jit && !strings.Contains(plan, `"JIT"`) {
		t.Errorf("with jit=on in the DSN, the plan shows no JIT:\n%s", plan)
	}
}

// costlyPlan returns the EXPLAIN (ANALYZE) of a read of rooms on a
// connection of the pool, with every plan above jit_above_cost and
// parallel workers costing nothing to start.
func costlyPlan(t *testing.T, ctx context.Context, pool *pgxpool.Pool) string {
	t.Helper()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	costs := []string{"jit_above_cost", "parallel_setup_cost", "parallel_tuple_cost", "min_parallel_table_scan_size"}
	for _, c := range costs {
		if _, err := conn.Exec(ctx, `SET `+c+` = 0`); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, c := range costs {
			_, _ = conn.Exec(ctx, `RESET `+c)
		}
	}()
	var plan string
	if err := conn.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM rooms WHERE round > 0`).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestConnectFailureIsOneLine: a database that cannot be reached is said in
// one line naming DATABASE_URL, the database and the user, each reason once
// (pgx's error spans lines, one per attempt, with and without TLS), and
// never the password.
func TestConnectFailureIsOneLine(t *testing.T) {
	t.Parallel()
	for dsn, reason := range map[string]string{
		"postgres://someone:s3cret-pw@127.0.0.1:1/taasky":                     "127.0.0.1:1 (127.0.0.1): dial error: dial tcp 127.0.0.1:1: connect: connection refused",
		"host=127.0.0.1 port=1 user=someone password=s3cret-pw dbname=taasky": "127.0.0.1:1 (127.0.0.1): dial error: dial tcp 127.0.0.1:1: connect: connection refused",
	} {
		_, _, err := runCmd(t, env{"DATABASE_URL": dsn}, "migrate")
		want := `DATABASE_URL: cannot connect to the database "taasky" as user "someone": ` + reason
		if err == nil || err.Error() != want {
			t.Errorf("migrate with %s:\n got %v\nwant %s", dsn, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the password is in %q", err)
		}
	}
}
