package app

import (
	"slices"
	"testing"
)

// TestWithFolded holds the folding of writes into a statement: each
// folded write's parameters numbered after the statement's (and the
// writes' before it), a statement's own WITH queries kept after them.
func TestWithFolded(t *testing.T) {
	folded := []foldedWrite{
		{`INSERT INTO a (x, y) VALUES ($1, $2)`, []any{"a1", "a2"}},
		{`UPDATE b SET x = $2 WHERE id = $1 AND z = $1`, []any{"b1", "b2"}},
	}
	for _, tc := range []struct {
		sql, want string
	}{
		{`INSERT INTO m (x) VALUES ($1)`,
			`WITH w0 AS (INSERT INTO a (x, y) VALUES ($2, $3)), w1 AS (UPDATE b SET x = $5 WHERE id = $4 AND z = $4) INSERT INTO m (x) VALUES ($1)`},
		{`WITH r AS (UPDATE m SET x = $1 RETURNING id) SELECT id FROM r`,
			`WITH w0 AS (INSERT INTO a (x, y) VALUES ($2, $3)), w1 AS (UPDATE b SET x = $5 WHERE id = $4 AND z = $4), r AS (UPDATE m SET x = $1 RETURNING id) SELECT id FROM r`},
	} {
		args := make([]any, 1, 4)
		args[0] = "m1"
		sql, got := withFolded(folded, tc.sql, args)
		if sql != tc.want {
			t.Errorf("withFolded(%q)\n got %s\nwant %s", tc.sql, sql, tc.want)
		}
		if want := []any{"m1", "a1", "a2", "b1", "b2"}; !slices.Equal(got, want) {
			t.Errorf("args %v, want %v", got, want)
		}
		if len(args) != 1 {
			t.Errorf("the caller's args changed: %v", args)
		}
	}
	if sql, args := withFolded(nil, `SELECT $1`, []any{1}); sql != `SELECT $1` || len(args) != 1 {
		t.Errorf("nothing folded: %q %v", sql, args)
	}
}
