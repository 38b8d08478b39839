package app

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// tablesHolding is, of each needle (name → text), the tables with a row
// whose text holds it, case aside (as text, or as bytea's hex): every
// column of every table of the database, as a backup has them, River's
// jobs (told apart by kind and state) and the audit log included.
func tablesHolding(t *testing.T, ctx context.Context, pool *pgxpool.Pool, needles map[string]string) map[string][]string {
	t.Helper()
	rows, _ := pool.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 30 {
		t.Fatalf("the tables: %v, %v", tables, err)
	}
	names := make([]string, 0, len(needles))
	texts := make([]string, 0, len(needles))
	for name, text := range needles {
		names, texts = append(names, name), append(texts, strings.ToLower(text))
	}
	out := map[string][]string{}
	for _, table := range tables {
		where := `''`
		if table == "river_job" {
			where = `t.kind || ' ' || t.state`
		}
		rows, _ := pool.Query(ctx, `SELECT DISTINCT i, `+where+` FROM `+pgx.Identifier{table}.Sanitize()+` t, unnest($1::text[]) WITH ORDINALITY AS n(needle, i)
			WHERE strpos(lower(t::text), needle) > 0 OR strpos(lower(t::text), encode(convert_to(needle, 'UTF8'), 'hex')) > 0`, texts)
		type hit struct {
			I    int64
			What string
		}
		in, err := pgx.CollectRows(rows, pgx.RowToStructByPos[hit])
		if err != nil {
			t.Fatalf("search %s: %v", table, err)
		}
		for _, h := range in {
			where := table
			if h.What != "" {
				where += " (" + h.What + ")"
			}
			out[names[h.I-1]] = append(out[names[h.I-1]], where)
		}
	}
	return out
}
