package migrations_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var fileName = regexp.MustCompile(`^\d{5}_[a-z0-9_]+\.(sql|go)$`)

// migrationFiles counts the migrations: the SQL files and the ones
// written in Go (00019_room_chain.go).
func migrationFiles() (int, error) {
	names, err := filepath.Glob("*.sql")
	return len(names) + 1, err
}

// TestFileNames keeps the numbering readable: NNNNN_name.sql (or .go, a
// migration written in Go), no gaps.
func TestFileNames(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	want := 1
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "0") || strings.HasSuffix(name, "_test.go") {
			continue // migrations.go, the tests
		}
		if !fileName.MatchString(e.Name()) {
			t.Errorf("%s: want NNNNN_name.sql or .go (lowercase, underscores)", e.Name())
			continue
		}
		if n, err := strconv.Atoi(e.Name()[:5]); err != nil || n != want {
			t.Errorf("%s: want number %05d (no gaps, no duplicates)", e.Name(), want)
		}
		want++
	}
}
