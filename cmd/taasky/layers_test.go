package main

import (
	"os/exec"
	"strings"
	"testing"
)

// layers is what each product package must not import directly (a prefix
// matches a module and its packages): the house of docs/architecture.md.
// negotiation has its own, stricter test (negotiation/purity_test.go), and
// internal/config its own (only this command imports it).
var layers = map[string][]string{
	"app": {"net/http", "github.com/gofiber/", "github.com/modelcontextprotocol/",
		"taasky/dashboard", "taasky/mcpserver", "taasky/notify", "taasky/internal/locale"},
	"mcpserver": {"github.com/jackc/pgx", "github.com/riverqueue/",
		"taasky/dashboard", "taasky/jobs", "taasky/notify"},
	"oauthserver": {"github.com/jackc/pgx", "github.com/riverqueue/",
		"taasky/dashboard", "taasky/mcpserver", "taasky/jobs", "taasky/notify", "taasky/internal/locale"},
	"dashboard": {"github.com/jackc/pgx", "github.com/riverqueue/", "github.com/modelcontextprotocol/",
		"taasky/mcpserver"},
	"jobs": {"net/http", "github.com/gofiber/", "github.com/modelcontextprotocol/",
		"taasky/app", "taasky/dashboard", "taasky/mcpserver"},
	"notify": {"github.com/jackc/pgx", "github.com/riverqueue/", "github.com/gofiber/", "github.com/modelcontextprotocol/",
		"taasky/app", "taasky/jobs", "taasky/dashboard", "taasky/mcpserver"},
	"receipt": {"net/http", "github.com/jackc/pgx", "github.com/riverqueue/", "github.com/gofiber/", "github.com/modelcontextprotocol/",
		"taasky/app", "taasky/jobs", "taasky/notify", "taasky/dashboard", "taasky/mcpserver", "taasky/negotiation"},
	"internal/locale": {"github.com/jackc/pgx", "github.com/riverqueue/", "github.com/gofiber/",
		"taasky/app", "taasky/jobs", "taasky/notify", "taasky/dashboard", "taasky/mcpserver"},
}

// TestLayers: adapters and the service import only what their layer may, so
// the protocol decides, app persists, and the doors translate.
func TestLayers(t *testing.T) {
	const module = "github.com/taasky/taasky/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(fields[0], module)
		banned, ok := layers[pkg]
		if !ok {
			continue
		}
		seen[pkg] = true
		for _, imp := range fields[1:] {
			for _, b := range banned {
				if strings.HasPrefix(imp, b) || strings.HasPrefix(imp, "github.com/taasky/"+b) {
					t.Errorf("%s imports %s; its layer may not import %s (docs/architecture.md)", pkg, imp, b)
				}
			}
		}
	}
	for pkg := range layers {
		if !seen[pkg] {
			t.Errorf("go list did not list %s: the check saw nothing of it", pkg)
		}
	}
}
