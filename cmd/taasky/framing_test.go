package main

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// probeServer serves newProbeApp as serve does (serveHTTP) on a loopback
// port of its own until the test ends, and returns its address. Its
// refusals before any route are the web app's: newApp mounts on it.
func probeServer(t *testing.T) string {
	t.Helper()
	a := newProbeApp(deps{log: slog.New(slog.NewTextHandler(io.Discard, nil)), health: &health{}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = serveHTTP(a, ln) }()
	t.Cleanup(func() { _ = a.ShutdownWithTimeout(5 * time.Second) })
	return ln.Addr().String()
}

// halfClosedAnswer writes req, closes the connection's sending side and
// reads the answer.
func halfClosedAnswer(t *testing.T, addr, req string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%.60q, then the client's side closed: no answer (%v)", req, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// TestTransferCodingsRefusedAtOnce: a request whose Transfer-Encoding does
// not end in chunked is refused 400 as it arrives, closing the connection
// (RFC 9112 §6.3), and one naming a coding before chunked 501 (none is
// implemented). fasthttp took any Transfer-Encoding for chunked: a client
// sending "gzip", then waiting for the answer, waited the read timeout
// (30 s) and read 408, and "gzip, chunked" reached the routes, the body
// still coded. The door's refusals carry its CORS headers.
func TestTransferCodingsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	addr := probeServer(t)
	const head = "POST /mcp/demo-a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nOrigin: https://client.example\r\n"
	for _, c := range []struct {
		te, body string
		status   int
		want     string
	}{
		{"gzip", "", 400, `Transfer-Encoding \"gzip\" does not end in chunked`},
		{"gzip", "abc", 400, `Transfer-Encoding \"gzip\" does not end in chunked`},
		{"chunked, gzip", "", 400, `does not end in chunked`},
		{"chunked, chunked", "0\r\n\r\n", 400, `applies chunked more than once`},
		{"gzip, chunked", "2\r\n{}\r\n0\r\n\r\n", 501, `Transfer-Encoding "gzip, chunked" is not implemented`},
	} {
		resp, body := rawRequest(t, addr, []byte(head+"Transfer-Encoding: "+c.te+"\r\n\r\n"+c.body))
		if resp.StatusCode != c.status || !strings.Contains(body, c.want) || !resp.Close ||
			resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("Transfer-Encoding %q: %d %v %s; want %d saying %s, closing", c.te, resp.StatusCode, resp.Header, body, c.status, c.want)
		}
	}
	// One naming no coding: fasthttp read it as chunked too, past the
	// Content-Length that framed the body (review: "{}" was refused as a
	// chunk size it cannot parse; a body starting with a hex digit waited
	// the read timeout for the rest of the chunk).
	for _, te := range []string{"", " , "} {
		resp, body := rawRequest(t, addr, []byte(head+"Transfer-Encoding: "+te+"\r\nContent-Length: 2\r\n\r\n{}"))
		if resp.StatusCode != 400 || !strings.Contains(body, "Transfer-Encoding names no coding") || !resp.Close {
			t.Errorf("Transfer-Encoding %q: %d %v %s; want 400 saying it names no coding, closing", te, resp.StatusCode, resp.Header, body)
		}
	}
	// Chunked alone is read as before.
	resp, body := rawRequest(t, addr, []byte("GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"))
	if resp.StatusCode != 200 {
		t.Errorf("a chunked body: %d %s", resp.StatusCode, body)
	}
}

// TestClientGoneMidRequestIsTold: a client that closes its sending side
// (shutdown write) in the middle of a request is answered 400 saying so,
// wherever it stopped. Between two chunks of a body, fasthttp took the
// end for a client with nothing more to send and closed without a word;
// within a chunk it said "unexpected EOF". A whole request followed by
// the close is answered.
func TestClientGoneMidRequestIsTold(t *testing.T) {
	t.Parallel()
	addr := probeServer(t)
	const head = "POST /mcp/demo-a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	for _, req := range []string{
		head + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n", // between chunks
		head + "Transfer-Encoding: chunked\r\n\r\n",             // before the first
		head + "Transfer-Encoding: chunked\r\n\r\n9\r\nabc",     // within one
		head + "Content-Length: 10\r\n\r\nabc",
		head + "X-Half: a",
	} {
		resp, body := halfClosedAnswer(t, addr, req)
		if resp.StatusCode != 400 || !strings.Contains(body, "the client closed its side of the connection") {
			t.Errorf("%q: %d %s", req, resp.StatusCode, body)
		}
	}
	for _, req := range []string{
		"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
	} {
		if resp, body := halfClosedAnswer(t, addr, req); resp.StatusCode != 200 {
			t.Errorf("%q: %d %s", req, resp.StatusCode, body)
		}
	}
}

// TestRefusalsBeforeParsingAreTheDoors: the refusals fasthttp makes of a
// request it could not parse carry the CORS headers of the door it was
// sent to (a page of another origin reads them, not "Failed to fetch"),
// and a request line past the read buffer is 414 URI Too Long (RFC 9110
// §15.5.15), not the 431 of headers too large (review: both read 431,
// without CORS headers).
func TestRefusalsBeforeParsingAreTheDoors(t *testing.T) {
	t.Parallel()
	addr := probeServer(t)
	long := strings.Repeat("a", 5000)
	for _, c := range []struct {
		what, req string
		status    int
		want      string
		cors      bool
	}{
		{"a long URL to the door", "POST /mcp/demo-a?x=" + long + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request line exceeds 4096 bytes", true},
		{"a long path to the door", "POST /mcp/" + long + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request line exceeds 4096 bytes", true},
		{"a long URL to the token endpoint", "GET /oauth/token?" + long + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request line exceeds 4096 bytes", true},
		{"a long bearer to the door", "POST /mcp/demo-a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + long + "\r\n\r\n", 431, "request line and headers exceed 4096 bytes", true},
		{"a long URL to a page", "GET /settings?" + long + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request line exceeds 4096 bytes", false},
		{"a long header to a page", "GET /settings HTTP/1.1\r\nHost: x\r\nX-Pad: " + long + "\r\n\r\n", 431, "request line and headers exceed 4096 bytes", false},
		{"a long URL and a header together", "GET /healthz?" + long[:4000] + " HTTP/1.1\r\nHost: x\r\nX-Pad: " + long[:200] + "\r\n\r\n", 431, "request line and headers", false},
		{"an unparsable Content-Length to the door", "POST /mcp/demo-a HTTP/1.1\r\nHost: x\r\nContent-Length: twelve\r\n\r\n", 400, "Content-Length", true},
		{"an unparsable Content-Length to registration", "POST /oauth/register HTTP/1.1\r\nHost: x\r\nContent-Length: twelve\r\n\r\n", 400, "Content-Length", true},
	} {
		resp, body := rawRequest(t, addr, []byte(c.req))
		if resp.StatusCode != c.status || !strings.Contains(body, c.want) || (resp.Header.Get("Access-Control-Allow-Origin") == "*") != c.cors {
			t.Errorf("%s: %d %v %s; want %d saying %q, CORS %v", c.what, resp.StatusCode, resp.Header, body, c.status, c.want, c.cors)
		}
	}
}

// TestPipelinedRefusalIsNotTheRequestBefore: a request sent right behind
// another on the connection (pipelined, in one write) that fasthttp cannot
// parse is not refused as the request before it: its answer carries no
// door's CORS headers nor words when it was sent to a page (review: the
// connection's kept start was the first request's, a door's, since no
// answer had been written between them).
func TestPipelinedRefusalIsNotTheRequestBefore(t *testing.T) {
	t.Parallel()
	addr := probeServer(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := io.WriteString(conn, "GET /mcp/demo-a HTTP/1.1\r\nHost: x\r\nOrigin: https://client.example\r\n\r\n"+
		"GET /settings HTTP/1.1\r\nHost: x\r\nContent-Length: twelve\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	first, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, first.Body)
	second, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(second.Body)
	if second.StatusCode != 400 || second.Header.Get("Access-Control-Allow-Origin") != "" || strings.HasPrefix(string(body), "{") {
		t.Errorf("the page's request refused as the door's: %d %v %s", second.StatusCode, second.Header, body)
	}
}
