// Package golden compares what a test produces with a file under the
// package's testdata/, or rewrites the file when the test binary runs with
// -update (go test ./negotiation/ -update). A meant change then shows in
// review as a change to the file. It must not be used outside tests.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the code produces now")

// Update reports whether the test binary runs with -update, for a test that
// writes a file of its own under testdata/ instead of comparing with it.
func Update() bool { return *update }

// JSON compares got, as indented JSON with a final newline, with
// testdata/name, or rewrites the file with -update.
func JSON(t testing.TB, name string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatalf("golden %s: %v", name, err)
	}
	Bytes(t, name, append(b, '\n'))
}

// Bytes compares got with testdata/name, or rewrites the file with -update.
// A difference fails the test with the first line that differs.
func Bytes(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run %s to create it)", err, rerun(t))
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the code produces now, first at %s; if the change is meant, run %s and review the diff",
			path, firstDifference(got, want), rerun(t))
	}
}

// rerun is the command that rewrites the test's golden files: go test on
// the package's directory, relative to the module's root, for the test.
func rerun(t testing.TB) string {
	dir := "."
	if wd, err := os.Getwd(); err == nil {
		for root := wd; ; {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				if rel, err := filepath.Rel(root, wd); err == nil {
					dir = "./" + filepath.ToSlash(rel)
				}
				break
			}
			up := filepath.Dir(root)
			if up == root {
				break
			}
			root = up
		}
	}
	top, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("go test %s -run '^%s$' -update", dir, top)
}

// firstDifference names the first line where got and want part, with both.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; ; i++ {
		switch {
		case i >= len(g) && i >= len(w):
			return "the end" // not reached: got and want differ
		case i >= len(g):
			return fmt.Sprintf("line %d: got the end, want %q", i+1, w[i])
		case i >= len(w):
			return fmt.Sprintf("line %d: got %q, want the end", i+1, g[i])
		case g[i] != w[i]:
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
}
