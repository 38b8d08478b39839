package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestSMTPKeepsConnections: messages in a row share a connection, with no
// NOOP between them; a kept connection the server dropped is replaced for
// the same message; a refused message is an error and the next one goes
// through; a connection kept longer than a moment is checked with NOOP.
func TestSMTPKeepsConnections(t *testing.T) {
	srv := notifytest.NewSMTPServer(t)
	m := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, Timeout: 5 * time.Second})
	defer m.Close()
	send := sender(t, m)
	for i := range 3 {
		if err := send(i); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Sessions(); n != 1 {
		t.Errorf("3 messages in a row took %d connections, want 1", n)
	}
	if n := srv.Noops(); n != 0 {
		t.Errorf("3 messages in a row sent %d NOOPs, want none", n)
	}
	srv.DropConnections()
	if err := send(3); err != nil {
		t.Fatalf("after the server dropped the kept connection: %v", err)
	}
	srv.Refuse(1)
	if err := send(4); err == nil {
		t.Fatal("a refused message came back as sent")
	}
	if err := send(5); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Mails()); got != 5 {
		t.Errorf("%d messages arrived, want 5", got)
	}
	if n := srv.Sessions(); n != 3 {
		t.Errorf("%d connections, want 3 (the first, one after the drop, one after the refusal)", n)
	}
	time.Sleep(2100 * time.Millisecond) // past notify.freshFor
	if err := send(6); err != nil {
		t.Fatal(err)
	}
	if n, s := srv.Noops(), srv.Sessions(); n != 1 || s != 3 {
		t.Errorf("a message on a connection kept 2 s: %d NOOPs and %d connections, want 1 and 3", n, s)
	}
}

// TestSMTPServerClosedAKeptConnection: a server that ends idle clients
// (go-smtp: "421 Idle timeout", then close) sooner than the mailer checks
// a kept connection costs a redial, not the message, and the message is
// sent once.
func TestSMTPServerClosedAKeptConnection(t *testing.T) {
	srv := notifytest.NewSMTPServerTimingOut(t, 200*time.Millisecond)
	m := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, Timeout: 5 * time.Second})
	defer m.Close()
	send := sender(t, m)
	for i := range 3 {
		if err := send(i); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		time.Sleep(400 * time.Millisecond) // the server times the connection out
	}
	if got := len(srv.Mails()); got != 3 {
		t.Errorf("%d messages arrived, want 3", got)
	}
	if n := srv.Attempts(); n != 3 {
		t.Errorf("%d messages offered, want 3", n)
	}
	if n := srv.Sessions(); n != 3 {
		t.Errorf("%d connections, want 3 (one per message)", n)
	}
}

// sender sends the i-th test message through m.
func sender(t *testing.T, m *notify.SMTP) func(i int) error {
	return func(i int) error {
		msg, err := notify.Email(&notify.Message{Kind: notify.KindClosed, To: "ann@example.test", ID: "t" + string(rune('a'+i)),
			RoomURL: "http://127.0.0.1/rooms/1", Title: "Room", TimeZone: time.UTC, Now: time.Now()}, "Taasky <taasky@127.0.0.1>")
		if err != nil {
			t.Fatal(err)
		}
		return m.Send(context.Background(), msg)
	}
}
