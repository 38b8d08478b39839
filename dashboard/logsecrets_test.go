package dashboard

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taasky/taasky/app"
)

// syncBuffer is a log destination several goroutines may write.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// TestFailedPagesDoNotLogTheirTokens: a stranger's page whose request
// fails inside Taasky (here: the database refuses the statement) is
// logged for the operator, with the route, but never with the one-tap
// token or invitation code in its path: either opens the room to whoever
// reads the log. The log says which route failed and keeps the ids of the
// signed-in pages.
func TestFailedPagesDoNotLogTheirTokens(t *testing.T) {
	logs := &syncBuffer{}
	b := setup(t, func(c *Config) {
		c.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	_, roomID, oneTap := b.askedToApprove(t, "Logged", "", meeting(3, 10, "office", "120"))
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "Invitation"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(b.ctx, `ALTER TABLE accounts RENAME TO accounts_away`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = b.pool.Exec(b.ctx, `ALTER TABLE accounts_away RENAME TO accounts`) })
	stranger := b.client(nil)
	for _, path := range []string{"/c/" + oneTap, "/i/" + open.InviteCode} {
		if status, _, _ := stranger.do("GET", path, nil); status != 500 {
			t.Errorf("GET %s: %d, want 500 (the statement refused)", path, status)
		}
	}
	if status, _, _ := b.client(&b.bob).do("GET", "/rooms/"+strconv.FormatInt(roomID, 10), nil); status != 500 {
		t.Errorf("GET /rooms/%d: %d, want 500", roomID, status)
	}
	out := logs.String()
	for what, secret := range map[string]string{"one-tap token": oneTap, "invitation code": open.InviteCode} {
		if strings.Contains(out, secret) {
			t.Errorf("the log holds the %s:\n%s", what, out)
		}
	}
	for _, want := range []string{`"path":"/c/:token"`, `"path":"/i/:code"`, `"path":"/rooms/` + strconv.FormatInt(roomID, 10) + `"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the log does not say %s:\n%s", want, out)
		}
	}
}

// TestInvitationPageFailureIsNotAMissingLink: a database failure while the
// invitation page looks its code up is Taasky's failure: a 500 (or a 503
// while the database is away) and a line in the operator's log, not "this
// invitation link is not valid", which told the stranger their link was
// dead and left the operator nothing to see.
func TestInvitationPageFailureIsNotAMissingLink(t *testing.T) {
	logs := &syncBuffer{}
	b := setup(t, func(c *Config) {
		c.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "Invitation"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(b.ctx, `ALTER TABLE rooms RENAME TO rooms_away`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = b.pool.Exec(b.ctx, `ALTER TABLE rooms_away RENAME TO rooms`) })
	stranger := b.client(nil)
	if status, _, _ := stranger.do("GET", "/i/"+open.InviteCode, nil); status != 500 {
		t.Errorf("GET /i/…: %d, want 500", status)
	}
	if out := logs.String(); !strings.Contains(out, `"path":"/i/:code"`) {
		t.Errorf("the failure is not in the log:\n%s", out)
	}
}

// TestLockConflictLoggedAsError: a page PostgreSQL rolled back to break a
// deadlock is answered 503 (the same request again goes through), and
// logged at the error level as the lock conflict it is (a lock order of
// Taasky's to fix), not as the database not answering.
func TestLockConflictLoggedAsError(t *testing.T) {
	logs := &syncBuffer{}
	b := setup(t, func(c *Config) {
		c.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	a := fiber.New()
	a.Get("/deadlock", func(c *fiber.Ctx) error {
		return b.dash.fail(c, fmt.Errorf("decide: %w", &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}))
	})
	resp, err := a.Test(httptest.NewRequest(http.MethodGet, "/deadlock", nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if out := logs.String(); resp.StatusCode != 503 || !strings.Contains(out, `"level":"ERROR"`) || !strings.Contains(out, "lock conflict") ||
		strings.Contains(out, "did not answer") {
		t.Errorf("a deadlock: %d, logged %s; want 503 and an error naming the lock conflict", resp.StatusCode, out)
	}
}
