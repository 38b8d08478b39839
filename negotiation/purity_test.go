package negotiation

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// banned are the standard-library imports that would give the core I/O or
// an input the caller does not pass: each import path, or the path and
// everything under it, with the reason.
var banned = []struct{ path, why string }{
	{"os", "I/O: files, processes and the environment belong to the adapters"},
	{"net", "I/O: the network belongs to the adapters"},
	{"syscall", "I/O"},
	{"io/fs", "I/O: the file system belongs to the adapters"},
	{"io/ioutil", "I/O"},
	{"embed", "I/O: data comes in as arguments"},
	{"database", "I/O: SQL belongs to the store in app/"},
	{"log", "I/O: logging belongs to the adapters"},
	{"plugin", "I/O"},
	{"crypto/rand", "randomness is an input: pass it in"},
	{"math/rand", "randomness is an input: pass it in"},
	{"C", "cgo"},
}

// clock are the functions of package time that read the clock or wait on it.
var clock = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"}

// TestImportsOnlyStdlibAndDecimal holds the package to its rule: no I/O
// adapters, no clock, nothing but the standard library and shopspring/decimal.
// It reads the package's own non-test files with go/parser, whatever their
// build tags, and then asks go list for the dependencies of what it imports.
func TestImportsOnlyStdlibAndDecimal(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasSuffix(n, "_test.go") })
	// The rule is about room.go and its neighbours: if they are not found,
	// the test is looking in the wrong place, and checking nothing.
	if !slices.Contains(names, "room.go") || !slices.Contains(names, "open.go") {
		t.Fatalf("found %v: the package's files (room.go, open.go, ...) are not in the working directory", names)
	}
	fset := token.NewFileSet()
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		timeName := ""
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			at := fset.Position(imp.Pos())
			if why := bannedImport(path); why != "" {
				t.Errorf("%s: imports %s (%s)", at, path, why)
			}
			if path == "time" {
				timeName = "time"
				if imp.Name != nil {
					timeName = imp.Name.Name
				}
			}
		}
		switch timeName {
		case "":
			continue
		case ".", "_":
			t.Errorf("%s: imports time as %q; name it, so that reading the clock can be seen", name, timeName)
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == timeName && slices.Contains(clock, sel.Sel.Name) {
				t.Errorf("%s: time.%s reads the clock; the time is passed in", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}

	// What the imports bring with them: nothing outside the standard library
	// but shopspring/decimal.
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/taasky/taasky/negotiation") {
		t.Fatalf("go list -deps does not list the package itself: %q", deps)
	}
	for _, dep := range deps {
		if dep != "github.com/taasky/taasky/negotiation" && dep != "github.com/shopspring/decimal" {
			t.Errorf("negotiation depends on %s; it may import only the standard library and shopspring/decimal", dep)
		}
	}
}

// bannedImport says why negotiation may not import path, or "" if it may.
func bannedImport(path string) string {
	if path == "github.com/shopspring/decimal" {
		return ""
	}
	if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
		return "only the standard library and shopspring/decimal"
	}
	for _, b := range banned {
		if path == b.path || strings.HasPrefix(path, b.path+"/") {
			return b.why
		}
	}
	return ""
}
