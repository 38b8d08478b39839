package fiberhttp

import (
	"bytes"
	"context"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

type key struct{}

// TestDerivedContextsAndShutdown: a handler that derives a context from
// its request (and leaves it running) sees Fiber's locals, and the server
// shuts down without a data race (run with -race).
func TestDerivedContextsAndShutdown(t *testing.T) {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	leaked := make(chan context.CancelFunc, 1)
	app.Get("/", func(c *fiber.Ctx) error {
		c.Locals(key{}, "local")
		return c.Next()
	}, Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Hour)
		leaked <- cancel
		_, _ = w.Write([]byte(ctx.Value(key{}).(string)))
	})))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	n, _ := resp.Body.Read(buf)
	resp.Body.Close()
	if string(buf[:n]) != "local" {
		t.Fatalf("the handler saw %q, want Fiber's local", buf[:n])
	}
	if err := app.ShutdownWithTimeout(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	(<-leaked)()
}

// TestNoRawAdaptor: no other package of the module mounts a net/http
// handler with Fiber's adaptor directly. A trust test once did, and -race
// caught the shutdown race above, now and then, in CI.
func TestNoRawAdaptor(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == self || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(src, []byte("adaptor.HTTPHandler")) {
			t.Errorf("%s mounts a handler with Fiber's adaptor: use fiberhttp.Handler", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
