package main

import (
	"context"
	"encoding/json"
	"fmt"
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
		"BASE_URL":       "http://127.0.0.1:8080",
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

// TestShutdownAnswersWaitingReads: a negotiation_read waiting on its room
// (wait_seconds up to 25) when the process stops is answered with the room
// as the listener closes, not held until the drain's 20 s run out and its
// connection cut without an answer (what an agent saw with
// SHUTDOWN_GRACE=0, the `dev` default, or a read begun in the grace).
func TestShutdownAnswersWaitingReads(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig(env{"DATABASE_URL": pgtest.NewDSN(t), "SECRET_KEY": testSecret,
		"LISTEN_ADDR": "127.0.0.1:0", "BASE_URL": "http://127.0.0.1:8080", "SHUTDOWN_GRACE": "0"}.get, config.RoleDev|config.RoleWeb|config.RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := openServer(t.Context(), cfg, newLogger(io.Discard, true), true, true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	if _, err := srv.accounts.CreateAccount(t.Context(), "acme", "Acme", "a@example.test"); err != nil {
		t.Fatal(err)
	}
	_, key, err := srv.accounts.CreateAgent(t.Context(), "acme", "bot", "a@example.test")
	if err != nil {
		t.Fatal(err)
	}
	web, err := srv.webApp(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- srv.serve(ctx, web, func(a string) { addr <- a }) }()
	endpoint := "http://" + <-addr + "/mcp/acme"
	call := func(tool, args string) (map[string]any, error) {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`))
		req.Header.Set("Authorization", "Bearer "+key.Key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var out struct {
			Result struct {
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Result.IsError {
			return nil, fmt.Errorf("%s: %d, %v, %+v", tool, resp.StatusCode, err, out.Result)
		}
		return out.Result.StructuredContent, nil
	}
	// A room nobody joined yet: its opener's read waits for the other side.
	open, err := call("negotiation_open", `{"subject_schema":{"day":{"type":"date","label":"Day"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		room map[string]any
		err  error
	}
	read := make(chan answer, 1)
	go func() {
		room, err := call("negotiation_read", `{"room_token":"`+open["room_token"].(string)+`","wait_seconds":25}`)
		read <- answer{room, err}
	}()
	for srv.rooms.Waiting() == 0 {
		select {
		case a := <-read:
			t.Fatalf("the read did not wait: %+v", a)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel() // SIGTERM
	a := <-read
	if a.err != nil || a.room["room"] == nil {
		t.Errorf("the waiting read at shutdown: %v %v, want its room", a.err, a.room)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
