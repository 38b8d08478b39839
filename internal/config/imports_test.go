package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const self = "github.com/taasky/taasky/internal/config"

// TestOnlyTheCommandImportsConfig holds the rule of the package doc: the
// product packages take plain values, never a Config; only the command
// (cmd/taasky) reads the configuration.
func TestOnlyTheCommandImportsConfig(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "github.com/taasky/taasky/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := fields[0]
		seen[pkg] = true
		if pkg == self || pkg == "github.com/taasky/taasky/cmd/taasky" {
			continue
		}
		for _, dep := range fields[1:] {
			if dep == self {
				t.Errorf("%s depends on %s; only cmd/taasky may (pass the values it needs as arguments)", pkg, self)
			}
		}
	}
	for _, pkg := range []string{"github.com/taasky/taasky/app", "github.com/taasky/taasky/cmd/taasky", self} {
		if !seen[pkg] {
			t.Fatalf("go list did not list %s: the check saw nothing\n%s", pkg, out)
		}
	}
}

// TestReadsOnlyGetenv: the configuration comes from the getenv the caller
// passes, so that tests and commands can give their own.
func TestReadsOnlyGetenv(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files here: %v", err)
	}
	banned := regexp.MustCompile(`\bos\.(Getenv|LookupEnv|Environ|ReadFile|Open)\(`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := banned.Find(b); m != nil {
			t.Errorf("%s calls %s: read the environment through the getenv passed in", f, m)
		}
	}
}
