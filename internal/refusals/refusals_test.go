package refusals

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestOneLinePerWindow: every refusal is counted; one line per key per
// Every, with the refusals since the key's last line.
func TestOneLinePerWindow(t *testing.T) {
	var out bytes.Buffer
	r := New(slog.New(slog.NewTextHandler(&out, nil)))
	now := time.Unix(0, 0)
	r.now = func() time.Time { return now }
	for range 5 {
		r.Refused("mcp", "bad_bearer", "", slog.LevelInfo, "refused")
	}
	r.Refused("mcp", "rate_limit", "7", slog.LevelWarn, "flood", "agent_id", 7)
	now = now.Add(Every)
	r.Refused("mcp", "bad_bearer", "", slog.LevelInfo, "refused")
	r.Count("mcp", "bad_request")
	var nilR *Refusals
	nilR.Refused("mcp", "bad_bearer", "", slog.LevelInfo, "refused")
	nilR.Count("mcp", "bad_bearer")

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{"level=INFO msg=refused reason=bad_bearer refused=1", "level=WARN msg=flood agent_id=7 reason=rate_limit refused=1",
		"level=INFO msg=refused reason=bad_bearer refused=5"}
	if len(lines) != len(want) {
		t.Fatalf("lines:\n%s", out.String())
	}
	for i, w := range want {
		if !strings.HasSuffix(lines[i], w) {
			t.Errorf("line %d: %q, want …%q", i, lines[i], w)
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(r.Collector())
	families, err := reg.Gather()
	if err != nil || len(families) != 1 {
		t.Fatal(families, err)
	}
	got := map[string]float64{}
	for _, m := range families[0].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "reason" {
				got[l.GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	if want := map[string]float64{"bad_bearer": 6, "rate_limit": 1, "bad_request": 1}; len(got) != len(want) ||
		got["bad_bearer"] != 6 || got["rate_limit"] != 1 || got["bad_request"] != 1 {
		t.Errorf("counted %v, want %v", got, want)
	}
}
