// Package notifytest holds real endpoints for tests of notifications: an
// SMTP server that keeps what it accepts, and a Web Push endpoint that
// checks the VAPID JWT and decrypts RFC 8291 payloads with the
// subscription's private key. Both listen on 127.0.0.1.
package notifytest

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-smtp"
)

// Mail is one message the SMTP server accepted.
type Mail struct {
	From       string
	To         []string
	Data       []byte
	AcceptedAt time.Time
}

// SMTPServer is an in-process SMTP server (github.com/emersion/go-smtp).
type SMTPServer struct {
	Host string
	Port int

	mu     sync.Mutex
	mails  []Mail
	refuse int // refuse this many more DATA commands with a 451
	// refuseForGood: refuse this many more DATA commands with a 554, a
	// refusal of the message for good (RFC 5321 §4.2.1: not to be sent
	// again as it is)
	refuseForGood int
	attempts      int
	// unknown: addresses refused at RCPT with a 550, as a server refuses
	// a mailbox it does not have
	unknown  map[string]bool
	sessions int
	noops    int
	conns    []*smtp.Conn
	arrived  chan struct{}
	idle     time.Duration
	srv      *smtp.Server // nil while Down
}

// NewSMTPServer starts a server on 127.0.0.1:0, closed when the test ends.
func NewSMTPServer(t testing.TB) *SMTPServer {
	return NewSMTPServerTimingOut(t, 10*time.Second)
}

// NewSMTPServerTimingOut starts a server that ends a client's connection
// after idle without a command, with "421 Idle timeout" as go-smtp does.
func NewSMTPServerTimingOut(t testing.TB, idle time.Duration) *SMTPServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &SMTPServer{arrived: make(chan struct{}, 1), idle: idle}
	addr := ln.Addr().(*net.TCPAddr)
	s.Host, s.Port = addr.IP.String(), addr.Port
	s.serve(ln)
	t.Cleanup(s.Down)
	return s
}

func (s *SMTPServer) serve(ln net.Listener) {
	srv := smtp.NewServer(s)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = s.idle, 10*time.Second
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(noopCounter{ln, s}) }()
}

// Down stops the server, as a mail server that is away: its connections
// are closed and its port refuses new ones until Up.
func (s *SMTPServer) Down() {
	s.mu.Lock()
	srv := s.srv
	s.srv, s.conns = nil, nil
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Up starts a server Down stopped, on the same port.
func (s *SMTPServer) Up(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(s.Host, strconv.Itoa(s.Port)))
	if err != nil {
		t.Fatal(err)
	}
	s.serve(ln)
}

// Noops is how many NOOP commands clients sent.
func (s *SMTPServer) Noops() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.noops
}

// noopCounter counts the NOOP commands its connections carry (go-smtp
// answers them without telling the backend).
type noopCounter struct {
	net.Listener
	s *SMTPServer
}

func (l noopCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &noopConn{Conn: c, s: l.s}, nil
}

type noopConn struct {
	net.Conn
	s    *SMTPServer
	line []byte // the start of the line being read
	long bool   // the line is longer than any command counted
}

func (c *noopConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	for _, b := range p[:n] {
		if b != '\n' {
			if len(c.line) < 8 {
				c.line = append(c.line, b)
			} else {
				c.long = true
			}
			continue
		}
		if !c.long && strings.EqualFold(strings.TrimSpace(string(c.line)), "NOOP") {
			c.s.mu.Lock()
			c.s.noops++
			c.s.mu.Unlock()
		}
		c.line, c.long = c.line[:0], false
	}
	return n, err
}

// Refuse makes the server answer the next n messages with "451 try again".
func (s *SMTPServer) Refuse(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = n
}

// RefuseForGood makes the server answer the next n messages with "554
// 5.7.1 message refused", as a server refuses a message it will never
// take (its content, its size, the sender's policy).
func (s *SMTPServer) RefuseForGood(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseForGood = n
}

// RefuseRecipient makes the server refuse addr at RCPT TO with "550
// 5.1.1 <addr>: Recipient address rejected: User unknown", for good, as a
// server answers for a mailbox it does not have.
func (s *SMTPServer) RefuseRecipient(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unknown == nil {
		s.unknown = map[string]bool{}
	}
	s.unknown[strings.ToLower(addr)] = true
}

// Attempts is how many messages were offered (DATA), accepted or not.
func (s *SMTPServer) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// Mails returns the accepted messages so far.
func (s *SMTPServer) Mails() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.mails...)
}

// Wait returns once the server holds at least n messages, or fails the test
// after timeout.
func (s *SMTPServer) Wait(t testing.TB, n int, timeout time.Duration) []Mail {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if m := s.Mails(); len(m) >= n {
			return m
		}
		select {
		case <-s.arrived:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("smtp: %d messages after %s, want %d", len(s.Mails()), timeout, n)
		}
	}
}

// NewSession is go-smtp's Backend.
func (s *SMTPServer) NewSession(c *smtp.Conn) (smtp.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions++
	s.conns = append(s.conns, c)
	return &session{srv: s}, nil
}

// DropConnections closes every connection a client has open, as a server
// that times idle clients out does.
func (s *SMTPServer) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.conns = nil
}

// Sessions is how many connections clients opened.
func (s *SMTPServer) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

type session struct {
	srv  *SMTPServer
	from string
	to   []string
	utf8 bool // MAIL FROM asked for SMTPUTF8
}

func (x *session) Reset()        { x.from, x.to, x.utf8 = "", nil, false }
func (x *session) Logout() error { return nil }
func (x *session) Mail(from string, o *smtp.MailOptions) error {
	x.from, x.utf8 = from, o != nil && o.UTF8
	return nil
}

// Rcpt refuses an address in UTF-8 outside a SMTPUTF8 transaction, which
// this server does not offer, as RFC 6531 §3.5 has servers do (553
// 5.6.7): a client must write such a domain as its A-label.
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if !x.utf8 && strings.ContainsFunc(to, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return &smtp.SMTPError{Code: 553, EnhancedCode: smtp.EnhancedCode{5, 6, 7}, Message: "non-ASCII address without SMTPUTF8"}
	}
	x.srv.mu.Lock()
	unknown := x.srv.unknown[strings.ToLower(to)]
	x.srv.mu.Unlock()
	if unknown {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "<" + to + ">: Recipient address rejected: User unknown"}
	}
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, r); err != nil {
		return err
	}
	s := x.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	if s.refuse > 0 {
		s.refuse--
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	if s.refuseForGood > 0 {
		s.refuseForGood--
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "message refused"}
	}
	s.mails = append(s.mails, Mail{From: x.from, To: x.to, Data: buf.Bytes(), AcceptedAt: time.Now()})
	select {
	case s.arrived <- struct{}{}:
	default:
	}
	return nil
}
