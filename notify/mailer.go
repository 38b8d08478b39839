package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"time"

	"github.com/wneessen/go-mail"
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
// than the message): a kept connection is checked with NOOP before use,
// and one that went away is replaced by a new dial for the same message.
// A connection whose message failed is closed, so a failure stays with
// its job.
type SMTP struct {
	cfg  SMTPConfig
	idle chan *mail.Client
}

// keptConnections is how many idle connections an SMTP mailer keeps.
const keptConnections = 4

// NewSMTP returns a mailer for cfg.
func NewSMTP(cfg SMTPConfig) *SMTP {
	if cfg.Timeout == 0 {
		cfg.Timeout = 15 * time.Second
	}
	return &SMTP{cfg: cfg, idle: make(chan *mail.Client, keptConnections)}
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
// permanent refusal is a *PermanentError).
func (s *SMTP) Send(ctx context.Context, msg *mail.Msg) error {
	select {
	case c := <-s.idle:
		err := c.Send(msg)
		if err == nil {
			s.keep(c)
			return nil
		}
		_ = c.Close()
		var se *mail.SendError
		if !errors.As(err, &se) || se.Reason != mail.ErrConnCheck {
			return sendFailure(err)
		}
		// The kept connection went away before the message was sent: dial.
	default:
	}
	c, err := s.client()
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if err := c.DialWithContext(ctx); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if err := c.Send(msg); err != nil {
		_ = c.Close()
		return sendFailure(err)
	}
	s.keep(c)
	return nil
}

// keep puts a connection back for the next message, or closes it when
// enough are kept.
func (s *SMTP) keep(c *mail.Client) {
	select {
	case s.idle <- c:
	default:
		_ = c.Close()
	}
}

// Close closes the kept connections.
func (s *SMTP) Close() {
	for {
		select {
		case c := <-s.idle:
			_ = c.Close()
		default:
			return
		}
	}
}

func sendFailure(err error) error {
	var se *mail.SendError
	// Only a recipient the server refuses for good is not worth a retry;
	// anything else (a server down, a setting fixed later) may pass.
	if errors.As(err, &se) && se.Reason == mail.ErrSMTPRcptTo && !se.IsTemp() {
		return &PermanentError{Err: err}
	}
	return fmt.Errorf("smtp: %w", err)
}

// PermanentError is a refusal that a retry will not change: a recipient
// the SMTP server refuses for good, a push service refusing the request.
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
