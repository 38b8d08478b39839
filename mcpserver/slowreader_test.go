package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// twoAccounts authenticates key "tsk_<n>" as account n's agent n.
type twoAccounts struct{}

func (twoAccounts) AuthenticateAgentKey(_ context.Context, key string) (app.Agent, error) {
	n := int64(1)
	if key == "tsk_2" {
		n = 2
	}
	return app.Agent{ID: n, AccountID: n, AccountSlug: fmt.Sprint("acct", n), OwnerUserID: n, Name: "agent"}, nil
}

// TestSlowReadersHoldTheirAccountsPlaces: an answer is sent from memory
// (fasthttp holds the whole body), so a client that asks for a large
// answer (a room's whole history, tens of MB) and reads it slowly, or not
// at all, holds that memory until the write times out (60 s). The call
// counts as in progress for its account until its answer is written:
// without it, one account's clients that never read held 700 MB of the
// heap with 30 such reads of 20 MB, as many as its agents' rate limits let
// them send, however few it may have in progress. Another account's calls
// are answered meanwhile, and the places come back when the readers go.
func TestSlowReadersHoldTheirAccountsPlaces(t *testing.T) {
	t.Parallel()
	const places = 2
	web := fiber.New(fiber.Config{DisableStartupMessage: true, WriteTimeout: time.Minute})
	// An answer of about 16 MB: more than the kernel's buffers take.
	New(largeHistory{answerBytes: 4 << 20}, "test").WithAccountConcurrency(places).Mount(web, twoAccounts{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = web.Listener(ln) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	addr := ln.Addr().String()
	history := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_read","arguments":{"room_token":"rt_1","history":true}}}`
	list := func(key string) int {
		req, _ := http.NewRequest("POST", "http://"+addr+"/mcp/acct"+strings.TrimPrefix(key, "tsk_"), strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}

	var readers []net.Conn
	for i := range places {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.(*net.TCPConn).SetReadBuffer(4096)
		_ = conn.SetDeadline(time.Now().Add(time.Minute))
		if _, err := fmt.Fprintf(conn, "POST /mcp/acct1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer tsk_1\r\nContent-Length: %d\r\n\r\n%s", len(history), history); err != nil {
			t.Fatal(err)
		}
		status := make([]byte, 12)
		if _, err := io.ReadFull(conn, status); err != nil || string(status) != "HTTP/1.1 200" {
			t.Fatalf("reader %d: %q %v", i, status, err)
		}
		readers = append(readers, conn) // and reads no more
	}
	if got := list("tsk_1"); got != http.StatusTooManyRequests {
		t.Errorf("with %d answers of its being written to clients that do not read, the account's next call: HTTP %d, want 429", places, got)
	}
	if got := list("tsk_2"); got != http.StatusOK {
		t.Errorf("another account's call: HTTP %d, want 200", got)
	}
	for _, c := range readers {
		c.Close()
	}
	if !waitFor(func() bool { return list("tsk_1") == http.StatusOK }) {
		t.Error("the readers gone, the account's calls are still refused")
	}
}

// TestLargeAnswersSentWholeToSlowReaders: a large answer (a room's whole
// history) goes on for as long as its client reads it, past the server's
// WriteTimeout, which fasthttp sets once for the whole answer: an agent
// on a slow connection was cut there, every time it asked (12 MB at
// 1 Mbit/s takes 96 s, past the service's 60 s).
func TestLargeAnswersSentWholeToSlowReaders(t *testing.T) {
	t.Parallel()
	web := fiber.New(fiber.Config{DisableStartupMessage: true, WriteTimeout: time.Second}) // the service's is 60 s
	New(largeHistory{answerBytes: 40 << 10}, "test").Mount(web, twoAccounts{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = web.Listener(smallSendBuffers{ln}) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	history := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_read","arguments":{"room_token":"rt_1","history":true}}}`
	fmt.Fprintf(conn, "POST /mcp/acct1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer tsk_1\r\nContent-Length: %d\r\n\r\n%s", len(history), history)
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 4096), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the read: %v %v", resp, err)
	}
	// Read slowly: seconds for the answer, past the 1-s WriteTimeout.
	got, buf := 0, make([]byte, 8<<10)
	for {
		n, err := resp.Body.Read(buf)
		got += n
		if err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got < answerUnit || int64(got) != resp.ContentLength {
		t.Errorf("a large answer read slowly: %d bytes of %d", got, resp.ContentLength)
	}
}

// smallSendBuffers hands out connections whose kernel send buffer is
// small, so that an answer is in the process, not in the kernel, until
// its client reads it.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		_ = c.(*net.TCPConn).SetWriteBuffer(4096)
	}
	return c, err
}
