package migrations_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

var fileName = regexp.MustCompile(`^\d{5}_[a-z0-9_]+\.sql$`)

// migrationFiles counts the migrations: the SQL files and the ones
// written in Go (00019_room_chain.go).
func migrationFiles() (int, error) {
	names, err := filepath.Glob("*.sql")
	return len(names) + 1, err
}

// TestFileNames keeps the numbering readable: NNNNN_name.sql, no gaps.
func TestFileNames(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	want := 1
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".sql" {
			continue
		}
		if !fileName.MatchString(e.Name()) {
			t.Errorf("%s: want NNNNN_name.sql (lowercase, underscores)", e.Name())
			continue
		}
		if n, err := strconv.Atoi(e.Name()[:5]); err != nil || n != want {
			t.Errorf("%s: want number %05d (no gaps, no duplicates)", e.Name(), want)
		}
		want++
	}
}
