package main

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestDevVAPIDKeys: taasky dev's Web Push keys pass the configuration's
// checks, are the same at every start, and never replace keys that are set.
func TestDevVAPIDKeys(t *testing.T) {
	t.Parallel()
	e := env{"DATABASE_URL": "postgres://x@127.0.0.1/x", "SECRET_KEY": testSecret}
	get, generated := devVAPIDEnv(e.get, testSecret)
	again, _ := devVAPIDEnv(e.get, testSecret)
	if !generated || get("VAPID_PUBLIC_KEY") == "" || get("VAPID_PUBLIC_KEY") != again("VAPID_PUBLIC_KEY") ||
		get("VAPID_PRIVATE_KEY") != again("VAPID_PRIVATE_KEY") {
		t.Fatal("dev VAPID keys are not generated, or not stable")
	}
	cfg, err := config.Load(get, config.RoleDev|config.RoleWeb|config.RoleWorker)
	if err != nil || cfg.VAPID == nil {
		t.Fatalf("dev VAPID keys refused: %v", err)
	}
	if other, _ := devVAPIDEnv(e.get, testSecret+"x"); other("VAPID_PUBLIC_KEY") == get("VAPID_PUBLIC_KEY") {
		t.Fatal("two secrets, one key")
	}
	e["VAPID_PUBLIC_KEY"] = "set"
	if get, generated := devVAPIDEnv(e.get, testSecret); generated || get("VAPID_PUBLIC_KEY") != "set" || get("VAPID_PRIVATE_KEY") != "" {
		t.Fatal("a set key was replaced")
	}
}

// TestDevOutboxPage: mail kept by the dev outbox is listed and shown, its
// text with live links and its HTML sandboxed.
func TestDevOutboxPage(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load(env{"DATABASE_URL": pgtest.NewDSN(t), "SECRET_KEY": testSecret, "LISTEN_ADDR": "127.0.0.1:0", "BASE_URL": "http://127.0.0.1:8080"}.get,
		config.RoleDev|config.RoleWeb|config.RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := openServer(t.Context(), cfg, newLogger(io.Discard, true), true, false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	raw := "From: taasky@x\r\nTo: bob@example.test\r\nSubject: Hello <b>\r\nContent-Type: text/plain\r\n\r\nOpen http://127.0.0.1/c/ot_1 <now>\r\n"
	if err := srv.notify.outbox.Store.SaveOutbox(context.Background(), "bob@example.test", "Hello <b>", []byte(raw)); err != nil {
		t.Fatal(err)
	}
	web, err := srv.webApp(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mountOutbox(web, srv.deps)
	for path, want := range map[string]string{
		"/dev/outbox":       `<a href="/dev/outbox/1">Hello &lt;b&gt;</a>`,
		"/dev/outbox/1":     `Open <a href="http://127.0.0.1/c/ot_1">http://127.0.0.1/c/ot_1</a> &lt;now&gt;`,
		"/dev/outbox/1/raw": "Subject: Hello <b>",
	} {
		resp, err := web.Test(httptest.NewRequest("GET", path, nil), 5000)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d\n%s", path, resp.StatusCode, body)
		}
	}
	if resp, _ := web.Test(httptest.NewRequest("GET", "/dev/outbox/99", nil), 5000); resp.StatusCode != 404 {
		t.Errorf("GET /dev/outbox/99: %d", resp.StatusCode)
	}
}
