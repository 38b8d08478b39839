package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestSMTPKeepsConnections: messages in a row share a connection; a kept
// connection the server dropped is replaced for the same message; a
// refused message is an error and the next one goes through.
func TestSMTPKeepsConnections(t *testing.T) {
	srv := notifytest.NewSMTPServer(t)
	m := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, Timeout: 5 * time.Second})
	defer m.Close()
	ctx := context.Background()
	send := func(i int) error {
		msg, err := notify.Email(&notify.Message{Kind: notify.KindClosed, To: "ann@example.test", ID: "t" + string(rune('a'+i)),
			RoomURL: "http://127.0.0.1/rooms/1", Title: "Room", TimeZone: time.UTC, Now: time.Now()}, "Taasky <taasky@127.0.0.1>")
		if err != nil {
			t.Fatal(err)
		}
		return m.Send(ctx, msg)
	}
	for i := range 3 {
		if err := send(i); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Sessions(); n != 1 {
		t.Errorf("3 messages in a row took %d connections, want 1", n)
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
}
