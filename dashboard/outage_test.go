package dashboard

import (
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// toEnd reads a stream to its end (the chunked body's last, empty chunk),
// within 20 s; it returns what it read.
func toEnd(t *testing.T, s liveConn) string {
	t.Helper()
	_ = s.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	defer func() { _ = s.conn.SetReadDeadline(time.Time{}) }()
	var seen strings.Builder
	for {
		line, err := s.br.ReadString('\n')
		seen.WriteString(line)
		if err != nil {
			t.Fatalf("the stream did not end: %v\n%s", err, seen.String())
		}
		if line == "0\r\n" {
			return seen.String()
		}
	}
}

// TestLiveStreamWhoseAccessCheckFails: a signed-in person's live streams
// (a room's, the rooms list's) check their access again when it may have
// changed; when that check meets the database gone (every connection
// ended, none accepted), the stream ends, asking to be opened again (its
// retry), and does not say access was lost (no "gone": the check could not
// tell); opened again during the outage it is asked to come back in 5 s;
// once the database is back it opens as before, and nothing of the streams
// is left watching. A "change" may come before the end: the setup's own
// moves, whose notifications the hub may hear after the streams opened
// (CI saw two under load).
func TestLiveStreamWhoseAccessCheckFails(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, roomID, _, _ := b.askedBeta("Outage", 3)
	roomPath := fmt.Sprintf("/rooms/%d/events", roomID)
	cookie := b.sessionOf(b.bob)
	room, list := b.openLiveWith(t, cookie, roomPath), b.openLiveWith(t, cookie, "/events")

	back := pgtest.Outage(t, b.pool)
	b.dash.hub.AccessChanged(b.bob.ID) // a change of his access heard as the database went away
	for _, s := range []struct {
		name string
		c    liveConn
	}{{"room", room}, {"rooms list", list}} {
		said := toEnd(t, s.c)
		if strings.Contains(said, "event: gone") {
			t.Errorf("%s stream, its check failed, said:\n%s", s.name, said)
		}
	}
	cl := &client{b: b, cookies: map[string]string{sessionCookie: cookie}}
	for _, p := range []string{roomPath, "/events"} {
		if status, _, said := cl.get(p); status != 200 || said != "retry: 5000\n\n" {
			t.Errorf("%s opened during the outage: %d\n%s", p, status, said)
		}
	}
	back()
	b.dash.hub.mu.Lock()
	watching := len(b.dash.hub.users[b.bob.ID])
	b.dash.hub.mu.Unlock()
	if watching != 0 {
		t.Errorf("%d of Bob's streams still watch his access after they ended", watching)
	}
	for _, p := range []string{roomPath, "/events"} {
		if s := b.openLiveWith(t, cookie, p); !strings.HasPrefix(s.head, "HTTP/1.1 200") {
			t.Errorf("%s after the outage:\n%s", p, s.head)
		}
	}
}

// TestPageWhoseStatementTimesOut: with a statement_timeout set on the
// database (an operator's bound) and the room's table locked by another
// session past it, a room page's statement is cancelled by PostgreSQL
// (57014): the person is asked to try again in a moment (503, Retry-After),
// as when Taasky's own bound ends the wait, not told of an internal error.
func TestPageWhoseStatementTimesOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, roomID, _, _ := b.askedBeta("Timed out", 3)
	cl := b.client(&b.alice)
	page := fmt.Sprintf("/rooms/%d", roomID)
	if status, _, _ := cl.get(page); status != 200 {
		t.Fatalf("GET %s: %d", page, status)
	}
	pgtest.HoldLock(t, b.pool, `LOCK TABLE rooms IN ACCESS EXCLUSIVE MODE`)
	pgtest.StatementTimeout(t, b.pool, 300*time.Millisecond)
	status, _, body := cl.get(page)
	if status != 503 || cl.header.Get("Retry-After") == "" {
		t.Errorf("GET %s with its statement timed out: %d, Retry-After %q\n%s", page, status, cl.header.Get("Retry-After"), body)
	}
}

// TestPagesAndFormsWhenTheDatabaseFails: with the database gone (every
// connection ended, none accepted) or too slow (its tables locked past
// the operator's statement_timeout, the session's own tables left to
// read), every page, form and one-tap link asks to try again in a moment
// (503 with Retry-After and the words failover.retry), never an internal
// error, and a live page's stream to come back in 5 s (before, under the
// statement timeout, a 500 on which the page's EventSource gave up); nothing a form asked for is half done; once the database
// answers again the same requests go through.
func TestPagesAndFormsWhenTheDatabaseFails(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"outage", "statement timeout"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			_, tb, roomID, hash, token := b.askedBeta("Fails", 3)
			alice, anyone := b.client(&b.alice), b.client(nil)
			alice.get("/settings") // its CSRF token
			anyone.get("/c/" + token)
			room := fmt.Sprintf("/rooms/%d", roomID)
			type try struct {
				cl   *client
				path string
				form url.Values // nil: a GET
			}
			tries := []try{
				{alice, "/", nil}, {alice, room, nil}, {alice, "/settings", nil}, {alice, "/settings/deliveries", nil},
				{alice, "/accounts/alpha/members", nil}, {alice, "/accounts/alpha/settings", nil}, {alice, "/accounts/alpha/webhooks", nil},
				{anyone, "/c/" + token, nil},
				{anyone, "/c/" + token, url.Values{"subject_hash": {string(hash)}, "answer": {"confirm"}}},
				{alice, "/settings/timezone", url.Values{"time_zone": {"Europe/Paris"}}},
				{alice, "/accounts/alpha/rename", url.Values{"name": {"Renamed"}}},
				{alice, "/accounts/alpha/invitations", url.Values{"email": {"dora@example.test"}, "role": {"member"}}},
				{alice, "/settings/agents", url.Values{"account": {"alpha"}, "name": {"Second"}}},
			}
			do := func(tr try) (int, string) {
				token := tr.cl.token
				defer func() { tr.cl.token = token }() // a failed page gives none
				if tr.form == nil {
					st, _, body := tr.cl.get(tr.path)
					return st, body
				}
				form := url.Values{}
				for k, v := range tr.form {
					form[k] = v
				}
				st, _, body := tr.cl.post(tr.path, form)
				return st, body
			}
			var back func()
			if fault == "outage" {
				back = pgtest.Outage(t, b.pool)
			} else {
				var tables []string
				if err := b.pool.QueryRow(b.ctx, `SELECT array_agg(quote_ident(tablename)) FROM pg_tables
					WHERE schemaname = 'public' AND tablename NOT IN ('users', 'user_sessions')`).Scan(&tables); err != nil {
					t.Fatal(err)
				}
				hold := pgtest.HoldLock(t, b.pool, `LOCK TABLE `+strings.Join(tables, ", ")+` IN ACCESS EXCLUSIVE MODE`)
				pgtest.StatementTimeout(t, b.pool, 200*time.Millisecond)
				back = hold.Release
			}
			retry := locale.English().T("failover.retry")
			for _, tr := range tries {
				st, body := do(tr)
				if st != fiber.StatusServiceUnavailable || tr.cl.header.Get("Retry-After") != "5" || !strings.Contains(body, html.EscapeString(retry)) {
					t.Errorf("%s %v with the database failing: %d, Retry-After %q\n%s", tr.path, tr.form, st, tr.cl.header.Get("Retry-After"), body)
				}
			}
			// A live page's stream is asked to come back in 5 s: an
			// EventSource given any status but 200 gives up for good.
			for _, p := range []string{room + "/events", "/events"} {
				if st, _, said := alice.get(p); st != 200 || said != "retry: 5000\n\n" {
					t.Errorf("%s opened with the database failing: %d\n%s", p, st, said)
				}
			}
			back()
			// Nothing was done.
			if r, err := b.rooms.Read(b.ctx, b.beta, tb); err != nil || r.PendingConfirmation == nil {
				t.Errorf("the confirmation after the one-tap POST failed: %+v, %v", r.PendingConfirmation, err)
			}
			if u, err := b.accounts.UserByID(b.ctx, b.alice.ID); err != nil || u.TimeZone != b.alice.TimeZone {
				t.Errorf("Alice's zone after the form failed: %q, %v", u.TimeZone, err)
			}
			// The same requests go through.
			for _, tr := range tries {
				if st, body := do(tr); st >= 500 {
					t.Errorf("%s %v once the database is back: %d\n%s", tr.path, tr.form, st, body)
				}
			}
			if r, err := b.rooms.Read(b.ctx, b.beta, tb); err != nil || r.PendingConfirmation != nil {
				t.Errorf("the confirmation after the one-tap POST went through: %+v, %v", r.PendingConfirmation, err)
			}
		})
	}
}

// TestDeliveryLogsWrittenAcrossARestart: a worker reads what it sends,
// sends it (a mail accepted, a webhook answered 2xx), and then writes the
// delivery log's line; when the database restarted in between (every
// session ended; it accepts connections again), the pool's connections
// from before fail at their first statement (57P01), and the line was
// lost: the person's deliveries and the endpoint's log said the message
// never left, and a rescued job, reading the line first, would send it
// again. The line is written on a new connection.
func TestDeliveryLogsWrittenAcrossARestart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e, _, err := b.hooks.CreateWebhook(b.ctx, b.alice.ID, "alpha", "https://hooks.example.test/in", []string{"room.opened"})
	if err != nil {
		t.Fatal(err)
	}
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "Restart", InviteEmail: "pat@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	_, msgs, err := b.hooks.WebhookLog(b.ctx, b.alice.ID, "alpha", e.ID)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the endpoint's messages: %+v %v", msgs, err)
	}
	d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicInvite, RoomID: open.View.RoomID, Side: negotiation.SideA, UserID: b.alice.ID},
		JobID: 1, Attempt: 1, Channel: jobs.ChannelEmail}
	// What the webhook's worker reads before it sends, on the pool's
	// connections.
	if _, err := b.hooks.Webhook(b.ctx, b.alphaAccount.ID, msgs[0].ID); err != nil {
		t.Fatal(err)
	}
	pgtest.Outage(t, b.pool)() // a restart while it sends
	if err := b.hooks.RecordWebhook(b.ctx, jobs.WebhookAttempt{AccountID: b.alphaAccount.ID, MessageID: msgs[0].ID,
		JobID: 2, Attempt: 1, At: time.Now(), StatusCode: 204, Status: jobs.StatusSent}); err != nil {
		t.Errorf("the webhook's line after a restart: %v", err)
	}
	b.pool.Reset() // the mail's worker, on connections of after the first restart
	if sent, err := b.notify.Sent(b.ctx, d); err != nil || sent {
		t.Fatalf("sent before it was: %v %v", sent, err)
	}
	pgtest.Outage(t, b.pool)()
	if err := b.notify.Record(b.ctx, d, jobs.Outcome{Status: jobs.StatusSent, Recipient: "pat@example.test"}); err != nil {
		t.Errorf("the mail's line after a restart: %v", err)
	}
	if _, msgs, err := b.hooks.WebhookLog(b.ctx, b.alice.ID, "alpha", e.ID); err != nil || msgs[0].Status != string(jobs.StatusSent) || len(msgs[0].Attempts) != 1 {
		t.Errorf("the endpoint's log: %+v %v; want the message sent, one attempt", msgs, err)
	}
	if sent, err := b.notify.Sent(b.ctx, d); err != nil || !sent {
		t.Errorf("the mail's line: sent %v, %v", sent, err)
	}
}
