package main

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"testing"

	"github.com/taasky/taasky/internal/pgtest"
)

// asMainEnv set to 1 makes this test binary run as taasky (TestMain): the
// bench starts `taasky serve` as its own executable.
const asMainEnv = "TAASKY_TEST_AS_MAIN"

// TestBenchLive runs `taasky bench --live` small: 40 pages signed in
// through the bench's OIDC issuer over 5 rooms, 10 agents waiting in
// negotiation_read, two rounds of moves. Every page and every waiter must
// hear of every move, and the report must carry each figure. No timing is
// held against a goal here: that is the bench's at full size.
func TestBenchLive(t *testing.T) {
	t.Setenv(asMainEnv, "1") // the server the bench starts is this binary
	var out bytes.Buffer
	e := env{"DATABASE_URL": pgtest.NewDSN(t)}
	err := run(t.Context(), []string{"bench", "--live", "40", "--pages-per-room", "8", "--waiters", "10", "--rounds", "2", "--move-rate", "0"},
		e.get, &out, io.Discard)
	report := out.String()
	if err != nil {
		t.Fatalf("bench --live: %v\n%s", err, report)
	}
	for _, c := range []struct {
		line *regexp.Regexp
		n    int // measures in the line: pages × rounds, waiters × rounds
	}{
		{regexp.MustCompile(`page heard the move, from its answer: +n=(\d+) +p50=\S+ +p95=\S+ +p99=\S+ max=\S+; missed (\d+)`), 80},
		{regexp.MustCompile(`waiter's answer, from the move's answer: n=(\d+) +p50=\S+ +p95=\S+ +p99=\S+ max=\S+; missed (\d+)`), 20},
	} {
		m := c.line.FindStringSubmatch(report)
		if m == nil {
			t.Fatalf("the report has no line %s:\n%s", c.line, report)
		}
		if n, _ := strconv.Atoi(m[1]); n != c.n || m[2] != "0" {
			t.Errorf("%s: %d measures and %s missed, want %d and 0", m[0], n, m[2], c.n)
		}
	}
	for _, want := range []string{"40 pages over 5 rooms", "10 agents waiting", "moves:   20 ", "0 errors", "server, pages open:", "per page:", "per waiter:"} {
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	rss := regexp.MustCompile(`server, pages open: +VmRSS +([0-9.]+) MiB, VmHWM +([0-9.]+) MiB, +(\d+) goroutines, heap in use +([0-9.]+) MiB`).FindStringSubmatch(report)
	if rss == nil {
		t.Fatalf("no server figures with the pages open:\n%s", report)
	}
	for _, f := range rss[1:] {
		if v, _ := strconv.ParseFloat(f, 64); v <= 0 {
			t.Errorf("a server figure is %s in %q", f, rss[0])
		}
	}
}
