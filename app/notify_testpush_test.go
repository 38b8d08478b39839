package app

import (
	"errors"
	"testing"
	"time"
)

// TestTestPushSaysWhenAnotherGoes: a second "Send a test" within a minute
// is refused with the moment from which another may be sent. The dashboard
// writes moments to the minute, so that moment is a whole minute: a test
// sent at 10:00:30 said "send another from 10:01" (10:01:30 cut to the
// minute), and a test at 10:01 was refused again.
func TestTestPushSaysWhenAnotherGoes(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.clock.Store(time.Now().UTC().Truncate(time.Minute).Add(30 * time.Second).UnixNano())
	nb.subscribe(t, "alpha@example.test", "phone")
	user := nb.a.OwnerUserID
	if _, err := nb.svc.SendTestPush(nb.ctx, user, 0); err != nil {
		t.Fatal(err)
	}
	_, err := nb.svc.SendTestPush(nb.ctx, user, 0)
	var e *Error
	if !errors.As(err, &e) || e.Code != ErrConflict || len(e.Words.Args) != 2 {
		t.Fatalf("a second test at once: %v", err)
	}
	from, ok := e.Words.Args[1].(Moment)
	if !ok {
		t.Fatalf("the refusal's second argument is %T, want a Moment", e.Words.Args[1])
	}
	shown := time.Time(from).Truncate(time.Minute) // as the dashboard writes it
	if !shown.Equal(time.Time(from)) {
		t.Errorf("send another from %s: not a whole minute, shown as %s", time.Time(from).Format(time.TimeOnly), shown.Format("15:04"))
	}
	nb.clock.Store(shown.UnixNano())
	if _, err := nb.svc.SendTestPush(nb.ctx, user, 0); err != nil {
		t.Fatalf("a test at %s, the moment the refusal named: %v", shown.Format("15:04"), err)
	}
}
