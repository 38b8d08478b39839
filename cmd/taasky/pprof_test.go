package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestDevProfiler: taasky dev takes every setting of serve's, PPROF_ADDR
// too (it was ignored without a word: soak27 found no profiler where the
// README's setting said one would be).
func TestDevProfiler(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	e["PPROF_ADDR"] = freeAddr(t)
	p := start(t, e, "dev")
	p.waitStdout(t, "Stop with Ctrl-C.")
	resp, err := http.Get("http://" + e["PPROF_ADDR"] + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine") {
		t.Errorf("GET /debug/pprof/ on PPROF_ADDR under taasky dev: %d\n%.300s", resp.StatusCode, body)
	}
}
