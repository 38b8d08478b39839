package negotiation

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyStdlibAndDecimal holds the package to its rule: no I/O
// adapters, no clock, nothing but the standard library and shopspring/decimal.
func TestImportsOnlyStdlibAndDecimal(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != "github.com/taasky/taasky/negotiation" && dep != "github.com/shopspring/decimal" {
			t.Errorf("negotiation depends on %s; it may import only the standard library and shopspring/decimal", dep)
		}
	}
	// No clock: time is passed in.
	out, err = exec.Command("grep", "-rn", "--include=*.go", "--exclude=*_test.go", "-E", `time\.(Now|Since|Until|Sleep|After|Tick|NewTimer|NewTicker)\(`, ".").CombinedOutput()
	if err == nil {
		t.Errorf("negotiation reads the clock:\n%s", out)
	}
}
