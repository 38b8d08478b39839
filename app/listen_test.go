package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestListenerNoticesASilentConnection: a connection that stops delivering
// without failing (a dead peer, a pooler that drops notifications) is
// taken for lost within a probe, the channels are told, and the listener
// connects again. The connection goes through a proxy the test freezes.
func TestListenerNoticesASilentConnection(t *testing.T) {
	pool := pgtest.New(t)
	every, within := probeEvery, probeWithin
	probeEvery, probeWithin = 200*time.Millisecond, 300*time.Millisecond
	t.Cleanup(func() { probeEvery, probeWithin = every, within })

	conf := pool.Config().ConnConfig.Copy()
	proxy := proxyConfig(t, conf)
	heard := make(chan bool, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Listen(ctx, conf, slog.New(slog.DiscardHandler), Channel{Name: "taasky_test", Notified: func(string) {},
			Heard: func(up bool) { heard <- up }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	expect := func(want bool, what string) {
		t.Helper()
		select {
		case got := <-heard:
			if got != want {
				t.Fatalf("%s: heard(%v)", what, got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: nothing heard in 10 s", what)
		}
	}
	expect(true, "the listener connects and its probe comes back")
	proxy.freeze()
	expect(false, "a frozen connection is taken for lost")
	expect(true, "the listener connects again")
}

// freezer forwards TCP connections to target; freeze makes the ones open
// at the time stop carrying bytes, without closing them; cut makes them
// close on the next bytes either side sends, which it drops.
type freezer struct {
	ln    net.Listener
	stop  chan struct{} // closed at the test's end: frozen pipes let go
	mu    sync.Mutex
	conns []*frozenConn
}

type frozenConn struct {
	client, server net.Conn
	frozen, cut    atomic.Bool
}

func newFreezer(t *testing.T, network, target string) *freezer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln, stop: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial(network, target)
			if err != nil {
				c.Close()
				continue
			}
			fc := &frozenConn{client: c, server: up}
			f.mu.Lock()
			f.conns = append(f.conns, fc)
			f.mu.Unlock()
			go f.pipe(fc, up, c)
			go f.pipe(fc, c, up)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		close(f.stop)
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, fc := range f.conns {
			fc.client.Close()
			fc.server.Close()
		}
	})
	return f
}

// proxyConfig puts a freezer between conf and its server: conf's host
// and port become the freezer's.
func proxyConfig(t *testing.T, conf *pgx.ConnConfig) *freezer {
	network, target := "tcp", net.JoinHostPort(conf.Host, strconv.Itoa(int(conf.Port)))
	if strings.HasPrefix(conf.Host, "/") { // a Unix socket's directory
		network, target = "unix", fmt.Sprintf("%s/.s.PGSQL.%d", conf.Host, conf.Port)
	}
	f := newFreezer(t, network, target)
	conf.Host, conf.Port = "127.0.0.1", uint16(f.ln.Addr().(*net.TCPAddr).Port)
	conf.Fallbacks = nil
	return f
}

func (f *freezer) pipe(fc *frozenConn, dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if fc.frozen.Load() {
			<-f.stop
			return
		}
		if fc.cut.Load() {
			fc.client.Close()
			fc.server.Close()
			return
		}
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

func (f *freezer) freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fc := range f.conns {
		fc.frozen.Store(true)
	}
}

func (f *freezer) cut() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fc := range f.conns {
		fc.cut.Store(true)
	}
}
