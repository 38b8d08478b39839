package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestShutdownGrace: after the signal, /readyz answers 503 on new
// connections while the listener still serves them, for SHUTDOWN_GRACE;
// then the listener closes and serve returns.
func TestShutdownGrace(t *testing.T) {
	t.Parallel()
	getenv := env{
		"DATABASE_URL":   pgtest.NewDSN(t),
		"SECRET_KEY":     testSecret,
		"LISTEN_ADDR":    "127.0.0.1:0",
		"SHUTDOWN_GRACE": "3s",
	}.get
	cfg, err := config.Load(getenv, config.RoleDev|config.RoleWeb|config.RoleWorker)
	if err == nil {
		err = cfg.LoadShutdown(getenv)
	}
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	srv, err := openServer(t.Context(), cfg, newLogger(log, true), true, true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	web, err := srv.webApp(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- srv.serve(ctx, web, func(a string) { addr <- a }) }()
	base := "http://" + <-addr
	fresh := func() *http.Client { // a new connection each time, as a prober's
		return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	}
	get := func(path string) (int, error) {
		resp, err := fresh().Get(base + path)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	if st, err := get("/readyz"); st != http.StatusOK {
		t.Fatalf("/readyz before the signal: %d, %v", st, err)
	}

	signalled := time.Now()
	cancel()
	for !srv.health.stopping.Load() {
		select {
		case err := <-served:
			t.Fatalf("serve returned before its grace: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	if st, err := get("/readyz"); st != http.StatusServiceUnavailable {
		t.Errorf("/readyz in the grace: %d, %v; want 503", st, err)
	}
	if st, err := get("/healthz"); st != http.StatusOK {
		t.Errorf("a request in the grace: %d, %v; want it served", st, err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not return")
	}
	if d := time.Since(signalled); d < 3*time.Second {
		t.Errorf("serve returned %s after the signal, within its 3 s grace", d)
	}
	if c, err := net.Dial("tcp", base[len("http://"):]); err == nil {
		c.Close()
		t.Error("the listener still accepts after serve returned")
	}
	// The log says the grace as the operator wrote it, not in nanoseconds.
	if !strings.Contains(log.String(), `"grace":"3s"`) {
		t.Errorf("the log does not say the grace as 3s:\n%s", log.String())
	}
}
