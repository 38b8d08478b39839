package pgtest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/internal/pgtest"
)

func TestParallelDatabasesAreSeparateAndDropped(t *testing.T) {
	ctx := context.Background()
	names := make([]string, 8)
	t.Run("group", func(t *testing.T) {
		for i := range names {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				pool := pgtest.New(t)
				if err := pool.QueryRow(ctx, "SELECT current_database()").Scan(&names[i]); err != nil {
					t.Fatal(err)
				}
				// Each database starts from the migrated template, empty.
				var n int
				if err := pool.QueryRow(ctx, "SELECT count(*) FROM accounts").Scan(&n); err != nil || n != 0 {
					t.Fatalf("accounts: %d rows (%v)", n, err)
				}
				if _, err := pool.Exec(ctx, "INSERT INTO accounts (slug, name) VALUES ('acme', 'Acme')"); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
	admin, err := pgx.Connect(ctx, pgtest.BaseDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			t.Errorf("database %s given twice", name)
		}
		seen[name] = true
		var exists bool
		if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil || exists {
			t.Errorf("database %s still exists after its test (%v)", name, err)
		}
	}
}

func TestWithDatabase(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u@h:5432/postgres?sslmode=disable": "postgres://u@h:5432/x?sslmode=disable",
		"postgresql://u@h/":                            "postgresql://u@h/x",
		"host=h user=u dbname=postgres":                "host=h user=u dbname=postgres dbname=x",
	} {
		if got := pgtest.WithDatabase(in, "x"); got != want {
			t.Errorf("WithDatabase(%q) = %q, want %q", in, got, want)
		}
	}
}
