package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"net/textproto"
	"time"

	"github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// Mailer sends one rendered email.
type Mailer interface {
	Send(ctx context.Context, msg *mail.Msg) error
}

// SMTPConfig is where mail goes.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	// ImplicitTLS: TLS from the first byte (smtps://). Otherwise STARTTLS is
	// used when the server offers it.
	ImplicitTLS bool
	// Timeout bounds the connection and each command (default 15 s).
	Timeout time.Duration
	// TLSConfig overrides the default (tests).
	TLSConfig *tls.Config
}

// SMTP sends mail through an SMTP server. It keeps a few connections open
// between messages (a dial, EHLO, STARTTLS and AUTH per message cost more
// than the message). A kept connection that sent a message in the last
// freshFor goes straight to the next one; an older one is checked with
// NOOP first. One that went away while kept is replaced by a new dial for
// the same message (the server had accepted nothing on it). A connection
// whose message failed is closed, so a failure stays with its job.
type SMTP struct {
	cfg  SMTPConfig
	idle chan keptConn
}

// keptConn is an idle connection and when its last message was accepted.
type keptConn struct {
	conn *smtp.Client
	at   time.Time
}

// keptConnections is how many idle connections an SMTP mailer keeps.
const keptConnections = 4

// freshFor is how long after a message its connection is used again
// without a NOOP: a busy mailer saves a round trip per message (one in
// five of a message's). Servers close idle clients after minutes (RFC 5321
// §4.5.3.2.7 asks for at least five), and one that closed it sooner costs
// a redial, not the message.
const freshFor = 2 * time.Second

// NewSMTP returns a mailer for cfg.
func NewSMTP(cfg SMTPConfig) *SMTP {
	if cfg.Timeout == 0 {
		cfg.Timeout = 15 * time.Second
	}
	return &SMTP{cfg: cfg, idle: make(chan keptConn, keptConnections)}
}

func (s *SMTP) client() (*mail.Client, error) {
	opts := []mail.Option{mail.WithPort(s.cfg.Port), mail.WithTimeout(s.cfg.Timeout)}
	if s.cfg.ImplicitTLS {
		opts = append(opts, mail.WithSSL())
	} else {
		opts = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	}
	if s.cfg.TLSConfig != nil {
		opts = append(opts, mail.WithTLSConfig(s.cfg.TLSConfig))
	}
	if s.cfg.Username != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover),
			mail.WithUsername(s.cfg.Username), mail.WithPassword(s.cfg.Password))
	}
	return mail.NewClient(s.cfg.Host, opts...)
}

// Send delivers msg; an error means the server did not accept it (a
// permanent refusal is a *PermanentError). It returns as soon as the
// server answered the message's data: nil means the server accepted it.
// go-mail dials, speaks TLS and authenticates; the mail transaction (MAIL,
// RCPT, DATA) is run here, because go-mail's own sends an RSET after the
// message and waits for its answer before returning — a round trip to the
// server between its acceptance and the caller recording the send, which
// is the window in which a crash makes a rescued job send the message
// again. QUIT is not waited for either: nothing after the acceptance
// changes anything for the message, and a failure there must not make a
// retry send it twice.
func (s *SMTP) Send(ctx context.Context, msg *mail.Msg) error {
	if conn, fresh := s.kept(); conn != nil {
		err := s.sendOn(conn, msg)
		if !fresh || !errors.Is(err, errClosedAtMail) {
			return err
		}
		// Closed by the server while kept: dial, for the same message.
	}
	c, err := s.client()
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	conn, err := c.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return fmt.Errorf("smtp: dial: %w", err)
	}
	return s.sendOn(conn, msg)
}

// sendOn runs msg's transaction on conn, then keeps conn for the next
// message, or closes it if the message failed.
func (s *SMTP) sendOn(conn *smtp.Client, msg *mail.Msg) error {
	if err := transact(conn, msg, s.cfg.Timeout); err != nil {
		_ = conn.Close()
		return err
	}
	s.keep(conn)
	return nil
}

// kept returns a kept connection, or nil: a fresh one (its last message
// less than freshFor ago) as it is, an older one once it answered NOOP.
func (s *SMTP) kept() (conn *smtp.Client, fresh bool) {
	for {
		select {
		case k := <-s.idle:
			if time.Since(k.at) < freshFor {
				return k.conn, true
			}
			if k.conn.UpdateDeadline(s.cfg.Timeout) == nil && k.conn.Noop() == nil {
				return k.conn, false
			}
			_ = k.conn.Close()
		default:
			return nil, false
		}
	}
}

// keep puts a connection back for the next message (a transaction ended by
// its data leaves the session ready for the next MAIL), or ends it when
// enough are kept: QUIT, not waited for (bounded by the deadline).
func (s *SMTP) keep(conn *smtp.Client) {
	select {
	case s.idle <- keptConn{conn, time.Now()}:
	default:
		go func() { _ = conn.Quit() }()
	}
}

// Close ends the kept connections.
func (s *SMTP) Close() {
	for {
		select {
		case k := <-s.idle:
			_ = k.conn.Quit()
		default:
			return
		}
	}
}

// transact runs one mail transaction on conn: MAIL FROM, RCPT TO for each
// recipient, DATA. It returns once the server answered the data.
func transact(conn *smtp.Client, msg *mail.Msg, timeout time.Duration) error {
	if err := conn.UpdateDeadline(timeout); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	from, err := msg.GetSender(false)
	if err != nil {
		return &PermanentError{Err: fmt.Errorf("smtp: sender: %w", err)}
	}
	rcpts, err := msg.GetRecipients()
	if err != nil {
		return &PermanentError{Err: fmt.Errorf("smtp: recipients: %w", err)}
	}
	if err := conn.Mail(from); err != nil {
		if goneAtMail(err) {
			return fmt.Errorf("smtp: MAIL FROM: %w (%w)", err, errClosedAtMail)
		}
		return fmt.Errorf("smtp: MAIL FROM: %w", err)
	}
	for _, to := range rcpts {
		if err := conn.Rcpt(to); err != nil {
			// A recipient the server refuses for good (5xx) is not worth a
			// retry; anything else (a server down, a setting fixed later)
			// may pass.
			return refusal("RCPT TO", err)
		}
	}
	w, err := conn.Data()
	if err != nil {
		return refusal("DATA", err)
	}
	if _, err := msg.WriteTo(w); err != nil {
		_ = w.Close()
		return fmt.Errorf("smtp: write the message: %w", err)
	}
	// The server's answer to the data: the acceptance, a refusal, or no
	// answer (taken as not accepted: the retry may send it twice, which
	// beats never). A refusal for good (5xx: its content, its size, the
	// sender's policy) is the message's: offered again as it is, it would
	// be refused again, for the weeks of River's retries (RFC 5321
	// §4.2.1: a client does not repeat it).
	if err := w.Close(); err != nil {
		return refusal("the message", err)
	}
	return nil
}

// refusal is err, the server's answer to step, as Send returns it: a
// *PermanentError for a 5xx reply, else an error worth a retry. MAIL
// FROM's 5xx is not one: it says the sender or the session is refused
// (SMTP_FROM, the relay's credentials), which an operator fixes, and
// every message waits for that.
func refusal(step string, err error) error {
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 {
		return &PermanentError{Err: fmt.Errorf("smtp: %s: %w", step, err)}
	}
	return fmt.Errorf("smtp: %s: %w", step, err)
}

// errClosedAtMail marks a MAIL FROM that found the connection closed by
// the server: no reply (the connection ended), or 421 (the server is
// closing it). Nothing of the message was accepted on it.
var errClosedAtMail = errors.New("the server closed the connection")

// goneAtMail reports whether err, MAIL FROM's, says the connection is gone
// rather than the server refusing the sender.
func goneAtMail(err error) bool {
	var te *textproto.Error
	return !errors.As(err, &te) || te.Code == 421
}

// PermanentError is a refusal that a retry will not change: a recipient
// or a message the SMTP server refuses for good (5xx), a push service
// refusing the request.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return "permanent: " + e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// OutboxStore keeps mail that is not sent (dev without SMTP_URL).
type OutboxStore interface {
	SaveOutbox(ctx context.Context, to, subject string, raw []byte) error
}

// Outbox is the dev mailer: it keeps each message, as it would have been
// sent, for the dev outbox page.
type Outbox struct {
	Store OutboxStore
}

// Send keeps msg in the outbox.
func (o *Outbox) Send(ctx context.Context, msg *mail.Msg) error {
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	to := ""
	if rcpts := msg.GetTo(); len(rcpts) > 0 {
		to = rcpts[0].Address
	}
	subject := ""
	if s := msg.GetGenHeader(mail.HeaderSubject); len(s) > 0 {
		subject, _ = new(mime.WordDecoder).DecodeHeader(s[0])
	}
	return o.Store.SaveOutbox(ctx, to, subject, buf.Bytes())
}
