package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestShutdownFinishesRequests: a request in flight when the signal comes
// gets its answer, and /readyz says the process is going away.
func TestShutdownFinishesRequests(t *testing.T) {
	t.Parallel()
	srv, web := webServer(t, io.Discard)
	entered, release := make(chan struct{}), make(chan struct{})
	web.Get("/slow", func(c *fiber.Ctx) error {
		close(entered)
		<-release
		return c.SendString("done")
	})

	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- srv.serve(ctx, web, func(a string) { addr <- a }) }()
	base := "http://" + <-addr

	type reply struct {
		status int
		body   string
		err    error
	}
	slow := make(chan reply, 1)
	go func() {
		resp, err := http.Get(base + "/slow")
		if err != nil {
			slow <- reply{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		slow <- reply{resp.StatusCode, string(body), err}
	}()
	<-entered
	cancel() // the signal, while /slow is in flight
	for deadline := time.Now().Add(10 * time.Second); !srv.health.stopping.Load(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Error("/readyz does not report the shutdown 10 s after the signal")
			break
		}
	}
	close(release)
	if r := <-slow; r.err != nil || r.status != 200 || r.body != "done" {
		t.Errorf("request in flight got %d %q, %v", r.status, r.body, r.err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not return")
	}
}

// TestHandlerPanicIsA500: a handler that panics answers its request 500,
// with the stack in the log, and the process goes on serving.
func TestHandlerPanicIsA500(t *testing.T) {
	t.Parallel()
	var logged syncBuffer
	_, web := webServer(t, &logged)
	web.Get("/boom/:token", func(*fiber.Ctx) error { panic("a bug") })
	resp, err := web.Test(httptest.NewRequest(http.MethodGet, "/boom/secret-token", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("a panicking handler: %d", resp.StatusCode)
	}
	if log := logged.String(); !strings.Contains(log, `"msg":"request panicked"`) || !strings.Contains(log, "a bug") ||
		!strings.Contains(log, "server_test.go") || strings.Contains(log, "secret-token") {
		t.Fatalf("the log:\n%s", log)
	}
	if resp, err := web.Test(httptest.NewRequest(http.MethodGet, "/healthz", nil), -1); err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the panic, /healthz: %v %v", resp, err)
	}
}

// webServer is a whole process's server (web and worker roles, on a new
// database) logging JSON to log, and its web app, closed when t ends.
func webServer(t *testing.T, log io.Writer) (*server, *fiber.App) {
	t.Helper()
	cfg, err := config.Load(env{
		"DATABASE_URL": pgtest.NewDSN(t),
		"SECRET_KEY":   testSecret,
		"LISTEN_ADDR":  "127.0.0.1:0",
		"BASE_URL":     "http://127.0.0.1:8080", // links are not followed
	}.get, config.RoleDev|config.RoleWeb|config.RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := openServer(t.Context(), cfg, newLogger(log, true), true, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.close)
	web, err := srv.webApp(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return srv, web
}
