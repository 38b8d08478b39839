package notify

import (
	"io"
	"testing"
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
