package metricstest

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	s, err := Parse(strings.NewReader(`# HELP calls_total Calls.
# TYPE calls_total counter
calls_total{outcome="ok",tool="open"} 3
calls_total{outcome="refused",tool="open"} 1
calls_total{outcome="ok",tool="a \"quoted\", one"} 2
duration_seconds_bucket{tool="open",le="+Inf"} 4
up 1
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
		found  bool
	}{
		{"calls_total", []string{"tool", "open", "outcome", "ok"}, 3, true},
		{"calls_total", []string{"outcome", "refused", "tool", "open"}, 1, true},
		{"calls_total", []string{"tool", `a \"quoted\", one`, "outcome", "ok"}, 2, true},
		{"calls_total", []string{"tool", "open"}, 0, false}, // labels must match exactly
		{"calls_total", []string{"tool", "read", "outcome", "ok"}, 0, false},
		{"duration_seconds_bucket", []string{"tool", "open", "le", "+Inf"}, 4, true},
		{"up", nil, 1, true},
	} {
		if v, ok := s.Value(c.name, c.labels...); v != c.want || ok != c.found {
			t.Errorf("%s%v = %v, %v; want %v, %v", c.name, c.labels, v, ok, c.want, c.found)
		}
	}
	if _, err := Parse(strings.NewReader("calls_total{tool=\"open\"}\n")); err == nil {
		t.Error("a line without a value parsed")
	}
}
