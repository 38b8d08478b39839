package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawRequest writes req (the request line, headers and as much of the
// body as given) on a connection of its own and reads the answer.
func rawRequest(t *testing.T, addr string, req []byte) (*http.Response, string) {
	t.Helper()
	resp, body, err := rawAnswer(addr, req)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func rawAnswer(addr string, req []byte) (*http.Response, string, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := conn.Write(req); err != nil {
		return nil, "", fmt.Errorf("write %.40q: %w", req, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil, "", fmt.Errorf("answer to %.40q: %w", req, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body), nil
}

// TestRefusalsBeforeTheRoutes: what a stranger with a raw TCP client
// sends that no route should read is refused in one line naming the rule,
// and the process stays up (limits26):
//   - a body coded gzip (a zip bomb: Fiber's Ctx.Body inflates it whole
//     in memory, which the MCP door and the person's pages call, the door
//     before it knows the bearer): 415 naming Content-Encoding. Before, a
//     1 MB body inflating to 1 GB took the process past 1.8 GB, once per
//     call of Body;
//   - a request fasthttp cannot parse (a Content-Length not a number):
//     400 without the request's bytes, which fasthttp quoted back whole,
//     bearer and cookies included;
//   - headers past the read buffer: 431 naming its size ("Request Header
//     Fields Too Large" named none).
func TestRefusalsBeforeTheRoutes(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	addr := e["LISTEN_ADDR"]
	_, keys := startDevAgents(t, e)
	key := keys[0]
	door := "POST /mcp/demo-a HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + key +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nOrigin: https://client.example\r\n"

	// A body that stops short of its Content-Length, its client gone
	// quiet: 408 once the read timeout passes, naming it (it said
	// "Request Timeout"), with the door's CORS headers (fasthttp reset
	// the request, its path with it: it had none).
	stalled := make(chan string, 1)
	go func() {
		resp, body, err := rawAnswer(addr, []byte(door+"Content-Length: 1000\r\n\r\n{\"jsonrpc\""))
		if err != nil {
			stalled <- err.Error()
			return
		}
		stalled <- fmt.Sprintf("%d %s %s", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), body)
	}()
	defer func() {
		if got, want := <-stalled, `408 * the request was not received whole within 30 s`; got != want {
			t.Errorf("a body stopping short: %s, want %s", got, want)
		}
	}()

	// 64 MiB of a tools/list, gzipped twice: about 200 bytes.
	var inner, outer bytes.Buffer
	zw := gzip.NewWriter(&inner)
	_, _ = io.WriteString(zw, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"`+strings.Repeat("a", 64<<20)+`"}}`)
	_ = zw.Close()
	zw = gzip.NewWriter(&outer)
	_, _ = zw.Write(inner.Bytes())
	_ = zw.Close()
	bomb := outer.Bytes()
	for _, c := range []struct{ what, head string }{
		{"the door, its agent's key", door + "Content-Encoding: gzip, gzip\r\n"},
		{"the door, a bad key", strings.Replace(door, key, "tsk_not-a-key", 1) + "Content-Encoding: GZIP\r\n"},
		{"registration", "POST /oauth/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip, gzip\r\n"},
	} {
		resp, body := rawRequest(t, addr, fmt.Appendf([]byte(c.head), "Content-Length: %d\r\n\r\n%s", len(bomb), bomb))
		if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(body, "Content-Encoding") || !strings.Contains(body, "uncompressed") ||
			resp.Header.Get("Accept-Encoding") != "identity" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s, a gzip body: %d %v %s", c.what, resp.StatusCode, resp.Header, body)
		}
	}

	resp, body := rawRequest(t, addr, []byte(door+"Content-Length: twelve\r\n\r\n{}"))
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(body, key) || strings.Contains(body, "Authorization") ||
		!strings.Contains(body, "Content-Length") || len(body) > 300 {
		t.Errorf("a Content-Length not a number: %d %s", resp.StatusCode, body)
	}

	resp, body = rawRequest(t, addr, []byte("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 8000)+"\r\n\r\n"))
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge || !strings.Contains(body, "4096 bytes") {
		t.Errorf("an 8 KB header: %d %s", resp.StatusCode, body)
	}
	resp, body = rawRequest(t, addr, []byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz after them: %d %s", resp.StatusCode, body)
	}
}
