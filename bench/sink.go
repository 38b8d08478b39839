package bench

import (
	"bytes"
	"errors"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// Mail is one message the sink accepted.
type Mail struct {
	To       string
	Data     []byte
	Accepted time.Time
}

// Sink is an SMTP server on 127.0.0.1 that keeps every message, by
// recipient, with the moment it accepted it.
type Sink struct {
	srv  *smtp.Server
	Addr string
	mu   sync.Mutex
	by   map[string][]Mail
	wake chan struct{}
}

// StartSink listens on 127.0.0.1 (a free port unless addr names one).
func StartSink(addr string) (*Sink, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Sink{Addr: ln.Addr().String(), by: map[string][]Mail{}, wake: make(chan struct{})}
	s.srv = smtp.NewServer(backend{s})
	s.srv.Domain = "bench.local"
	s.srv.AllowInsecureAuth = true
	s.srv.ReadTimeout, s.srv.WriteTimeout = 30*time.Second, 30*time.Second
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Sink) Close() { _ = s.srv.Close() }

func (s *Sink) add(to []string, data []byte) {
	now := time.Now()
	s.mu.Lock()
	for _, r := range to {
		r = strings.ToLower(r)
		s.by[r] = append(s.by[r], Mail{To: r, Data: data, Accepted: now})
	}
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// Count is how many messages the sink holds.
func (s *Sink) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.by {
		n += len(m)
	}
	return n
}

var errTimeout = errors.New("timed out")

// WaitFor returns the first message to `to` (at or after index from) that
// match accepts, waiting up to timeout; and its index.
func (s *Sink) WaitFor(to string, from int, match func([]byte) bool, timeout time.Duration) (Mail, int, error) {
	to = strings.ToLower(to)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		mails, wake := s.by[to], s.wake
		s.mu.Unlock()
		for i := from; i < len(mails); i++ {
			if match(mails[i].Data) {
				return mails[i], i, nil
			}
		}
		select {
		case <-wake:
		case <-deadline.C:
			return Mail{}, 0, errTimeout
		}
	}
}

var oneTapLink = regexp.MustCompile(`https?://[^\s"<>]+/c/(ot_[A-Za-z0-9_-]+)`)

// OneTapURL finds the one-tap link in a message (text or HTML part; soft
// line breaks of quoted-printable undone first).
func OneTapURL(data []byte) string {
	flat := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("=\r\n"), nil), []byte("=3D"), []byte("="))
	return string(oneTapLink.Find(flat))
}

type backend struct{ s *Sink }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s  *Sink
	to []string
}

func (*session) AuthPlain(string, string) error              { return nil }
func (*session) Mail(string, *smtp.MailOptions) error        { return nil }
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error { x.to = append(x.to, to); return nil }
func (x *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.s.add(x.to, b)
	return nil
}
func (x *session) Reset()      { x.to = nil }
func (*session) Logout() error { return nil }
