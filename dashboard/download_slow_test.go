package dashboard

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// smallBuffers hands out connections whose kernel send buffer is small,
// so that a download is in the process, not in the kernel, until its
// client reads it.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		_ = c.(*net.TCPConn).SetWriteBuffer(4096)
	}
	return c, err
}

// TestDownloadsSentWholeToSlowReaders: a download (an account's export, a
// person's data: tens of MB for a large account) goes on for as long as
// its client reads it, past the server's WriteTimeout, which fasthttp
// sets once for the whole answer: a file that takes longer than that to
// read on a slow connection was cut, every time it was asked for. While
// it is sent, the person's other download is refused (one at a time, the
// file sent included: a client reading slowly holds its file on disk),
// and once it is sent another is served.
func TestDownloadsSentWholeToSlowReaders(t *testing.T) {
	t.Parallel()
	const size = 400 << 10
	web := fiber.New(fiber.Config{DisableStartupMessage: true, WriteTimeout: time.Second}) // the service's is 60 s
	d := &Dashboard{}
	web.Get("/download", func(c *fiber.Ctx) error {
		release, ok := d.downloads.take(1)
		if !ok {
			return c.SendStatus(http.StatusTooManyRequests)
		}
		return d.sendJSONSpooled(c, "x.json", release, func(w io.Writer) error {
			_, err := io.WriteString(w, `"`+strings.Repeat("x", size-2)+`"`)
			return err
		})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = web.Listener(smallBuffers{ln}) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	get := func() int {
		resp, err := http.Get("http://" + ln.Addr().String() + "/download")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}

	conn, err := (&net.Dialer{}).Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprint(conn, "GET /download HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReaderSize(conn, 4096)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the download: %v %v", resp, err)
	}
	// Read slowly: seconds for the file, past the 1-s WriteTimeout.
	got, asked := 0, 0
	buf := make([]byte, 3<<10)
	for got < size {
		n, err := resp.Body.Read(buf)
		got += n
		if err != nil {
			break
		}
		if asked == 0 && got > size/4 {
			asked = get() // while the first is sent
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got != size {
		t.Errorf("a download read slowly: %d bytes of %d", got, size)
	}
	if asked != http.StatusTooManyRequests {
		t.Errorf("a second download while the first is sent: HTTP %d, want 429", asked)
	}
	if !waitFor(func() bool { return get() == http.StatusOK }) {
		t.Error("after the first download, the next is still refused")
	}
}

// waitFor polls cond every 20 ms, at most 10 s.
func waitFor(cond func() bool) bool {
	for range 500 {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}
