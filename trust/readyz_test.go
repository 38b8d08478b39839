package trust

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
)

// cutter is a TCP proxy to PostgreSQL that the test can cut and restore:
// the database going away for this process only, without touching the
// server other test suites share.
type cutter struct {
	t      testing.TB
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
}

func newCutter(t testing.TB, target string) *cutter {
	c := &cutter{t: t, target: target, conns: map[net.Conn]struct{}{}}
	c.addr = freeAddr(t)
	c.restore()
	t.Cleanup(c.cut)
	return c
}

func (c *cutter) restore() {
	c.t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port may linger a moment after a cut
		if ln, err = net.Listen("tcp", c.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.ln = ln
	c.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", c.target)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			if c.ln != ln { // cut meanwhile
				c.mu.Unlock()
				in.Close()
				out.Close()
				return
			}
			c.conns[in], c.conns[out] = struct{}{}, struct{}{}
			c.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
}

// processBehindCutter is a taasky process (not started) on a database of
// its own, reached through a cutter (its rate limit off), with the
// database's own address (dsn) for the test's direct connections.
func processBehindCutter(t *testing.T) (dsn string, proxy *cutter, p *process) {
	t.Helper()
	dsn = pgtest.NewDSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy = newCutter(t, u.Host)
	viaProxy := *u
	viaProxy.Host = proxy.addr
	return dsn, proxy, newProcess(t, viaProxy.String(), "MCP_RATE_LIMIT=0")
}

// cut stops accepting and resets every connection through the proxy.
func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ln != nil {
		c.ln.Close()
		c.ln = nil
	}
	for conn := range c.conns {
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		conn.Close()
		delete(c.conns, conn)
	}
}

// TestReadyzWhenTheDatabaseGoesAway cuts the process's way to PostgreSQL
// under MCP calls: /readyz turns 503 with the reason while it is away, the
// calls fail fast with a clear error (no hang, no crash), and the process
// recovers by itself once the database is back.
func TestReadyzWhenTheDatabaseGoesAway(t *testing.T) {
	t.Parallel() // mostly waiting: for restarts, and for River to give back the jobs of a killed process
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	cycles := size(3, 10)
	dsn, proxy, p := processBehindCutter(t)
	p.start()
	w := newWorld(t, dsn, p.base)
	a := newRemote(t, w, p.base, "ready-a")
	ctx := context.Background()
	open := func() (result, error) {
		return callOn(ctx, a.sess, "negotiation_open", map[string]any{"subject_schema": raceSchema})
	}
	if r, err := open(); err != nil || r.err != "" {
		t.Fatalf("open before the cut: %v %s", err, r.err)
	}
	var toDown, toUp, slowest time.Duration
	var errsSeen []string
	for i := range cycles {
		proxy.cut()
		cutAt := time.Now()
		for {
			st, body := p.get("/readyz")
			if st == 503 {
				if !strings.Contains(body, "database") {
					t.Errorf("/readyz 503 says %q, want the reason", body)
				}
				break
			}
			if time.Since(cutAt) > 10*time.Second {
				t.Fatalf("cycle %d: /readyz still %d %q 10s after the database went away", i, st, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
		toDown = max(toDown, time.Since(cutAt))
		// While it is away: /healthz is up, /readyz keeps saying 503, and a
		// call fails within seconds, with a clear line.
		for range 3 {
			if st, _ := p.get("/healthz"); st != 200 {
				t.Errorf("/healthz %d while the database is away: the process is up", st)
			}
			if st, body := p.get("/readyz"); st != 503 {
				t.Errorf("/readyz %d %q while the database is away", st, body)
			}
			began := time.Now()
			r, err := open()
			took := time.Since(began)
			slowest = max(slowest, took)
			msg := r.err
			if err != nil {
				msg = err.Error()
			}
			if err == nil && r.err == "" {
				t.Errorf("a call succeeded while the database was away")
			}
			if took > 15*time.Second {
				t.Errorf("a call took %s while the database was away", took)
			}
			if len(errsSeen) < 3 {
				errsSeen = append(errsSeen, tail(msg, 200))
			}
		}
		proxy.restore()
		upAt := time.Now()
		for {
			if st, _ := p.get("/readyz"); st == 200 {
				break
			}
			if time.Since(upAt) > 20*time.Second {
				t.Fatalf("cycle %d: /readyz not 200 20s after the database came back", i)
			}
			time.Sleep(20 * time.Millisecond)
		}
		toUp = max(toUp, time.Since(upAt))
		var last string
		recovered := false
		for range 50 {
			r, err := open()
			if err == nil && r.err == "" {
				recovered = true
				break
			}
			last = fmt.Sprint(err, r.err)
			time.Sleep(100 * time.Millisecond)
		}
		if !recovered {
			t.Fatalf("cycle %d: calls still fail after the database came back: %s", i, last)
		}
	}
	t.Logf("readyz: %d cuts of the database; /readyz 503 within %s (worst), 200 again within %s of its return; "+
		"calls while away answered within %s (worst); they said: %q", cycles, toDown.Round(time.Millisecond),
		toUp.Round(time.Millisecond), slowest.Round(time.Millisecond), errsSeen)
}
