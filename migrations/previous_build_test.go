package migrations_test

import (
	"fmt"
	"testing"
)

// TestEachMigrationKeepsThePreviousSchema: during a rolling upgrade the
// new build's migrations run while processes of the previous build still
// serve (docs/operations.md, "Upgrading"), and a rollback runs the previous
// build on the new schema. So a migration may only add: every table and
// column the schema before it had stays, with its type, a column that took
// NULL still does, and a column added to an existing table takes NULL or
// has a default (the previous build's INSERTs do not name it). A migration
// that must break this says so in docs/operations.md, and is listed here.
func TestEachMigrationKeepsThePreviousSchema(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, provider := emptyDatabase(t)
	// Migrations from before the rule (rolling upgrades were not yet
	// described): 00010 and 00011 dropped columns.
	const from = 12
	if _, err := provider.UpTo(ctx, from-1); err != nil {
		t.Fatal(err)
	}
	type column struct {
		typ      string
		nullable bool
		dflt     bool
	}
	schema := func() map[string]map[string]column {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable = 'YES',
				c.column_default IS NOT NULL OR c.is_generated = 'ALWAYS' OR c.is_identity = 'YES'
			FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
			WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name NOT LIKE 'river%'
			  AND c.table_name <> 'goose_db_version'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]map[string]column{}
		for rows.Next() {
			var table, name string
			var c column
			if err := rows.Scan(&table, &name, &c.typ, &c.nullable, &c.dflt); err != nil {
				t.Fatal(err)
			}
			if out[table] == nil {
				out[table] = map[string]column{}
			}
			out[table][name] = c
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := schema()
	sources := provider.ListSources()
	for _, src := range sources {
		if src.Version < from {
			continue
		}
		if _, err := provider.UpTo(ctx, src.Version); err != nil {
			t.Fatal(err)
		}
		after := schema()
		name := fmt.Sprintf("%05d", src.Version)
		for table, cols := range before {
			now, ok := after[table]
			if !ok {
				t.Errorf("%s drops table %s, which the previous build uses", name, table)
				continue
			}
			for col, c := range cols {
				n, ok := now[col]
				switch {
				case !ok:
					t.Errorf("%s drops or renames %s.%s, which the previous build reads", name, table, col)
				case n.typ != c.typ:
					t.Errorf("%s changes %s.%s from %s to %s", name, table, col, c.typ, n.typ)
				case c.nullable && !n.nullable:
					t.Errorf("%s makes %s.%s NOT NULL: the previous build may write NULL there", name, table, col)
				}
			}
			for col, n := range now {
				if _, ok := cols[col]; !ok && !n.nullable && !n.dflt {
					t.Errorf("%s adds %s.%s NOT NULL without a default: the previous build's INSERTs into %s fail",
						name, table, col, table)
				}
			}
		}
		before = after
	}
}
