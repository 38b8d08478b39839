package notify

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSMTPAcceptedIsSent: a message the server accepted (250 to its data)
// is sent, even when the connection breaks right after: an error then
// would make River retry, and send it twice. Nothing but QUIT follows the
// acceptance (go-mail's RSET would be a round trip before the send is
// recorded). A recipient refused for good is a PermanentError; a refusal
// for now, at RCPT or at the data, is an error worth a retry.
func TestSMTPAcceptedIsSent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name            string
		rcpt, dataReply string
		wantErr         bool
		permanent       bool
	}{
		{"accepted, then the connection breaks", "250 ok", "250 2.0.0 queued", false, false},
		{"refused for now at the data", "250 ok", "451 4.3.0 try again later", true, false},
		{"refused for good at the data", "250 ok", "554 5.7.1 message refused", true, true},
		{"too large, for good", "250 ok", "552 5.3.4 message too big", true, true},
		{"recipient refused for now", "450 4.2.1 mailbox busy", "", true, false},
		{"recipient refused for good", "550 5.1.1 no such user", "", true, true},
	} {
		srv := newFakeSMTP(t, c.rcpt, c.dataReply)
		host, port, _ := net.SplitHostPort(srv.addr)
		p, _ := strconv.Atoi(port)
		msg, err := Email(sample(KindAgreed), "Taasky <taasky@taasky.example>")
		if err != nil {
			t.Fatal(err)
		}
		mailer := NewSMTP(SMTPConfig{Host: host, Port: p, Timeout: 5 * time.Second})
		err = mailer.Send(context.Background(), msg)
		mailer.Close() // a kept connection ends with QUIT; the session then ends
		var perm *PermanentError
		if (err != nil) != c.wantErr || errors.As(err, &perm) != c.permanent {
			t.Errorf("%s: %v", c.name, err)
		}
		if !c.wantErr {
			if after := srv.afterData(); after != "" && after != "QUIT" {
				t.Errorf("%s: %q after the acceptance, want nothing but QUIT", c.name, after)
			}
		}
	}
}

// fakeSMTP serves one session on 127.0.0.1: RCPT is answered rcpt, the
// data dataReply; the connection breaks at the command after the data.
type fakeSMTP struct {
	addr string
	done chan struct{} // closed when the session ends
	mu   sync.Mutex
	next string // the command after the data
}

// afterData waits for the session to end (the client's QUIT, or the
// connection closed), then says what came after the data.
func (f *fakeSMTP) afterData() string {
	select {
	case <-f.done:
	case <-time.After(15 * time.Second):
		return "nothing: the session did not end"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}

func newFakeSMTP(t *testing.T, rcpt, dataReply string) *fakeSMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	f := &fakeSMTP{addr: ln.Addr().String(), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(conn)
		say := func(s string) { _, _ = conn.Write([]byte(s + "\r\n")) }
		say("220 fake ESMTP")
		afterData := false
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			cmd := strings.ToUpper(strings.TrimSpace(line))
			switch {
			case afterData:
				f.mu.Lock()
				f.next = cmd
				f.mu.Unlock()
				return // the connection breaks
			case strings.HasPrefix(cmd, "EHLO"):
				say("250-fake\r\n250 8BITMIME")
			case strings.HasPrefix(cmd, "RCPT"):
				say(rcpt)
			case cmd == "DATA":
				say("354 go ahead")
				for {
					l, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if l == ".\r\n" {
						break
					}
				}
				say(dataReply)
				afterData = true
			default: // MAIL, NOOP, RSET, QUIT before the data
				say("250 ok")
			}
		}
	}()
	return f
}
