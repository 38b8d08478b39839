package notify

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/taasky/taasky/notify/notifytest"
)

// BenchmarkEmail renders a message as the email worker does, and writes it
// out as go-mail would to the SMTP server: a confirmation request, and an
// agreement with its calendar and receipt attached.
func BenchmarkEmail(b *testing.B) {
	for _, k := range []Kind{KindRequest, KindAgreed} {
		b.Run(string(k), func(b *testing.B) {
			m := sample(k)
			m.Receipt = "eyJhbGciOiJFZERTQSJ9.e30.c2ln"
			b.ReportAllocs()
			for b.Loop() {
				msg, err := Email(m, "Taasky <taasky@taasky.example>")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := msg.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSMTPSend sends a rendered confirmation request through a kept
// connection to an SMTP server in process, one message after another: the
// mail transaction's round trips and writing the message, as the email
// worker pays them on a busy mailer.
func BenchmarkSMTPSend(b *testing.B) {
	srv := notifytest.NewSMTPServer(b)
	m := NewSMTP(SMTPConfig{Host: srv.Host, Port: srv.Port, Timeout: 5 * time.Second})
	defer m.Close()
	msg, err := Email(sample(KindRequest), "Taasky <taasky@taasky.example>")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
	}
}
