package main

import (
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/metricstest"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestRiverCountsAreNotLogged: a working `taasky serve` does not log
// River's "Producer job counts" at info every 5 s (the sweep, a job a
// second, moves the counts always: 17,280 lines a day of each working
// process); River's other lines still come out, as component river.
func TestRiverCountsAreNotLogged(t *testing.T) {
	t.Parallel()
	p := start(t, env{
		"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret, "OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret",
	}, "serve")
	// Seven sweeps: more than the producer's 5-s tick since River started.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		m := metricstest.Scrape(t, "http://"+p.addr+"/metrics")
		if v, _ := m.Value("taasky_jobs_total", "kind", "sweep_due", "outcome", "completed"); v >= 7 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than 7 sweeps in 60 s:\n%s", p.stderr.String())
		}
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	log := p.stderr.String()
	if strings.Contains(log, "Producer job counts") {
		t.Errorf("River's job counts are logged:\n%s", log)
	}
	if !strings.Contains(log, `"msg":"River client started","component":"river"`) {
		t.Errorf("River's other lines are missing:\n%s", log)
	}
}
