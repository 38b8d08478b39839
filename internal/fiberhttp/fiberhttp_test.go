package fiberhttp

import (
	"bytes"
	"context"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
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

// TestLingerOnRefusal: a client whose header is past the server's read
// buffer, still sending it when the server refuses, reads the 431. Without
// LingerOnRefusal the server closes on the rest of the header and the
// client's writes or read fail with a reset.
func TestLingerOnRefusal(t *testing.T) {
	app := fiber.New(fiber.Config{DisableStartupMessage: true}) // 4 KiB read buffer
	LingerOnRefusal(app)
	app.Get("/", func(c *fiber.Ctx) error { return c.SendString("ok") })
	addr := serve(t, app)

	for try := range 3 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		head := "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("p", 16<<10) + "\r\n\r\n"
		// In 1 KiB pieces, a pause between them: the server sees the
		// first 4 KiB and refuses while the rest is on its way.
		for len(head) > 0 {
			n := min(1024, len(head))
			if _, err := conn.Write([]byte(head[:n])); err != nil {
				t.Fatalf("try %d: writing the header: %v", try, err)
			}
			head = head[n:]
			time.Sleep(5 * time.Millisecond)
		}
		var got bytes.Buffer
		if _, err := got.ReadFrom(conn); err != nil {
			t.Fatalf("try %d: reading the answer: %v (read %q)", try, err, got.String())
		}
		conn.Close()
		if !strings.HasPrefix(got.String(), "HTTP/1.1 431") {
			t.Fatalf("try %d: answered %q, want a 431", try, got.String())
		}
	}
}

// TestLingerOnABodyFarPastTheLimit: a client that writes its whole body
// before it reads (Node's fetch, the TypeScript MCP SDK's, does), 8 MiB
// against a 4 MiB limit, reads the 413. Draining only 1 MiB of it, the
// server closed on the rest: the client's write failed with a reset in
// about half of Node's tries, and always here (after about 2 MiB). 8 MiB
// on loopback take milliseconds, well within the drain's second.
func TestLingerOnABodyFarPastTheLimit(t *testing.T) {
	app := fiber.New(fiber.Config{DisableStartupMessage: true, BodyLimit: 4 << 20})
	LingerOnRefusal(app)
	app.Post("/", func(c *fiber.Ctx) error { return c.SendString("ok") })
	addr := serve(t, app)

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	const size = 8 << 20
	if _, err := conn.Write([]byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + strconv.Itoa(size) + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	piece := bytes.Repeat([]byte("a"), 64<<10)
	for sent := 0; sent < size; sent += len(piece) {
		if _, err := conn.Write(piece); err != nil {
			t.Fatalf("writing the body, %d bytes sent: %v", sent, err)
		}
	}
	var got bytes.Buffer
	if _, err := got.ReadFrom(conn); err != nil && got.Len() == 0 {
		t.Fatalf("reading the answer: %v", err)
	}
	if !strings.HasPrefix(got.String(), "HTTP/1.1 413") {
		t.Fatalf("answered %.100q, want a 413", got.String())
	}
}

// serve runs app on a loopback port of its own until the test ends and
// returns its address.
func serve(t *testing.T, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.ShutdownWithTimeout(5 * time.Second) })
	return ln.Addr().String()
}
