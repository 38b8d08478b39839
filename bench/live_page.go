package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// livePage is one open dashboard page's live stream (EventSource), held
// by the bench as cheaply as it can: one goroutine, one connection and a
// small read buffer per page, the HTTP spoken by hand. It reconnects as
// EventSource does when the server ends a stream (its life is 45 s), after
// the retry the stream asked for, on the same connection while it stays
// open.
type livePage struct {
	room   *liveRoom
	path   string // /rooms/{id}/events, or /events (the rooms list)
	cookie string // the session cookie, "taasky_session=…"

	// arrived is when the page heard of its room's change in the current
	// round (unix ns; 0: not yet): a "change" event, or its stream opening
	// again after the move was sent, on which the page refreshes itself
	// (app.js) and so shows the change too.
	arrived atomic.Int64
	opened  chan struct{} // closed once the stream first opened
	once    sync.Once
	reopens atomic.Int64 // streams opened after the first
	retry   atomic.Int64 // how long to wait before opening it again (ns), as the stream last said (retry:)
	fails   atomic.Int64 // answers that were not a stream, broken connections

	mu      sync.Mutex
	conn    net.Conn
	shut    bool
	refused string // the status line of the latest answer that was not a stream
}

// retryAfter is how long the bench waits before reconnecting until a
// stream says otherwise (retry:); browsers' default is about this.
const retryAfter = 3 * time.Second

// hear notes that the page heard its room change now, if the room's move
// of this round was sent already.
func (p *livePage) hear() {
	if p.room.sent.Load() != 0 {
		p.arrived.CompareAndSwap(0, time.Now().UnixNano())
	}
}

// run holds the page open until close; it returns only then.
func (p *livePage) run(addr, host string) {
	var br *bufio.Reader
	var conn net.Conn
	for {
		if conn == nil {
			c, err := net.DialTimeout("tcp", addr, 30*time.Second)
			if err != nil {
				if p.closed() {
					return
				}
				p.fails.Add(1)
				time.Sleep(p.retryAfter())
				continue
			}
			if !p.setConn(c) {
				c.Close()
				return
			}
			conn = c
			if br == nil {
				br = bufio.NewReaderSize(conn, 256)
			} else {
				br.Reset(conn)
			}
		}
		keep, err := p.stream(conn, br, host)
		if p.closed() {
			return
		}
		if err != nil {
			p.fails.Add(1)
		}
		if err != nil || !keep {
			conn.Close()
			conn = nil
		}
		time.Sleep(p.retryAfter())
	}
}

func (p *livePage) retryAfter() time.Duration {
	if d := p.retry.Load(); d > 0 {
		return time.Duration(d)
	}
	return retryAfter
}

func (p *livePage) setConn(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conn = c
	return !p.shut
}

func (p *livePage) closed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shut
}

// close ends the page.
func (p *livePage) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shut = true
	if p.conn != nil {
		p.conn.Close()
	}
}

var errNotStream = errors.New("the answer is not an event stream")

// stream asks for the stream once and reads it to its end; keep is whether
// the connection may carry the next request.
func (p *livePage) stream(conn net.Conn, br *bufio.Reader, host string) (keep bool, err error) {
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\nCookie: %s\r\n\r\n",
		p.path, host, p.cookie); err != nil {
		return false, err
	}
	// A stream beats every 15 s: a minute of silence is a dead connection.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := readLine(br)
	if err != nil {
		return false, err
	}
	ok := bytes.HasPrefix(line, []byte("HTTP/1.1 200 "))
	if !ok {
		p.mu.Lock()
		p.refused = string(line)
		p.mu.Unlock()
	}
	chunked, keep, length := false, true, -1
	for {
		h, err := readLine(br)
		if err != nil {
			return false, err
		}
		if len(h) == 0 {
			break
		}
		name, value, _ := bytes.Cut(h, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			keep = !bytes.EqualFold(value, []byte("close"))
		case bytes.EqualFold(name, []byte("Content-Length")):
			length, _ = strconv.Atoi(string(value))
		case bytes.EqualFold(name, []byte("Content-Type")):
			ok = ok && bytes.HasPrefix(value, []byte("text/event-stream"))
		}
	}
	if !ok || !chunked {
		// A page or an empty stream (the database did not answer): read
		// it through, and ask again as EventSource would.
		if length >= 0 {
			_, err = br.Discard(length)
		} else {
			keep, err = false, nil
		}
		if err == nil {
			err = errNotStream
		}
		return keep, err
	}
	var data []byte
	for {
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		size, err := readLine(br)
		if err != nil {
			return false, err
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 32)
		if err != nil || n < 0 {
			return false, fmt.Errorf("a chunk of size %q", size)
		}
		if n == 0 { // the stream's end, then the trailer's empty line
			_, err = readLine(br)
			return keep, err
		}
		if cap(data) < int(n)+2 {
			data = make([]byte, n+2)
		}
		data = data[:n+2]
		if _, err := io.ReadFull(br, data); err != nil {
			return false, err
		}
		p.events(data[:n])
	}
}

// events reads what one chunk of the stream carried.
func (p *livePage) events(b []byte) {
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		if ms, ok := bytes.CutPrefix(line, []byte("retry: ")); ok {
			if n, err := strconv.Atoi(string(ms)); err == nil && n >= 0 {
				p.retry.Store(int64(n) * int64(time.Millisecond))
			}
			continue
		}
		switch string(line) {
		case ": live": // the stream (re)opened
			first := false
			p.once.Do(func() { first = true; close(p.opened) })
			if !first {
				p.reopens.Add(1)
				p.hear()
			}
		case "event: change":
			p.hear()
		}
	}
}

// readLine reads one line, without its CRLF. The line is valid until the
// next read.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// openPages opens the pages, `parallel` at a time, and waits until each
// stream opened (or ctx ends).
func openPages(ctx context.Context, pages []*livePage, addr, host string, parallel int) error {
	sem := make(chan struct{}, parallel)
	for _, p := range pages {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		go p.run(addr, host)
		go func() {
			select {
			case <-p.opened:
			case <-ctx.Done():
			}
			<-sem
		}()
	}
	// Wait for each; a page refused three times before it opened will
	// not open.
	for _, p := range pages {
		for opened := false; !opened; {
			select {
			case <-p.opened:
				opened = true
			case <-ctx.Done():
				return fmt.Errorf("pages still not open: %w", ctx.Err())
			case <-time.After(100 * time.Millisecond):
				if p.fails.Load() >= 3 {
					p.mu.Lock()
					defer p.mu.Unlock()
					return fmt.Errorf("the page's stream %s does not open: %q", p.path, p.refused)
				}
			}
		}
	}
	return nil
}
