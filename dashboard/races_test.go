package dashboard

import (
	"fmt"
	"html"
	"log/slog"
	"maps"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/notify/notifytest"
)

// What people do at once: a double click, two tabs, an owner deleting the
// account while a member taps a mail's link. Each request gets one clear
// answer, never an internal error, and the database stays whole.

// answered is one response: status, Location and body.
type answered struct {
	status    int
	loc, body string
}

// together runs fn(0…n-1) at once, released by one barrier.
func together(n int, fn func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() { <-start; fn(i) })
	}
	close(start)
	wg.Wait()
}

// clone is another tab of the same browser: its cookies as they are now.
func (cl *client) clone() *client {
	return &client{b: cl.b, cookies: maps.Clone(cl.cookies), token: cl.token, lang: cl.lang}
}

// logSink collects what the dashboard logs.
type logSink struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func loggingTo(l *logSink) func(*Config) {
	return func(c *Config) { c.Log = slog.New(slog.NewTextHandler(l, nil)) }
}

// noInternalError fails on a 5xx answer or an error logged.
func noInternalError(t *testing.T, what string, got []answered, log *logSink) {
	t.Helper()
	for i, a := range got {
		if a.status >= 500 {
			t.Errorf("%s: request %d answered %d: %.300s", what, i, a.status, a.body)
		}
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("%s: an error was logged:\n%s", what, log.String())
	}
}

// valueShown is the value of the first input named name in a page (the
// subject_hash a card's form carries, a seat_nonce).
func valueShown(body, name string) string {
	_, rest, ok := strings.Cut(body, `name="`+name+`" value="`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// TestDeleteAccountWhileLinksAreTapped: an owner deletes the account while
// its human taps one-tap links of its rooms. The two used to lock the
// account's row and the links' rows in opposite orders: PostgreSQL broke
// the deadlock by failing one of them with a 500.
func TestDeleteAccountWhileLinksAreTapped(t *testing.T) {
	t.Parallel()
	var log logSink
	b := setup(t, loggingTo(&log))
	var rooms []int64
	var links, hashes []string
	var taps []*client
	for i := range 3 {
		_, roomID, link := b.askedToApprove(t, fmt.Sprint("room ", i), "", meeting(4, 9, "video", "20"))
		tap := b.client(nil)
		_, _, body := tap.get("/c/" + link)
		rooms, links, hashes, taps = append(rooms, roomID), append(links, link), append(hashes, valueShown(body, "subject_hash")), append(taps, tap)
	}
	bob := b.client(&b.bob)
	bob.get("/accounts/beta/settings")
	got := make([]answered, 1+len(taps))
	together(len(got), func(i int) {
		if i == 0 {
			st, loc, body := bob.post("/accounts/beta/delete", url.Values{"confirm": {"beta"}})
			got[i] = answered{st, loc, body}
			return
		}
		st, loc, body := taps[i-1].post("/c/"+links[i-1], url.Values{"subject_hash": {hashes[i-1]}, "answer": {"confirm"}})
		got[i] = answered{st, loc, body}
	})
	noInternalError(t, "deleting the account while its links are tapped", got, &log)
	b.workDeletions(t)
	b.waitAccountGone(t, "beta")
	for _, id := range rooms {
		var state string
		if err := b.pool.QueryRow(b.ctx, `SELECT state FROM rooms WHERE id = $1`, id).Scan(&state); err != nil || state != "closed" {
			t.Errorf("room %d: %s %v after the deletion", id, state, err)
		}
	}
	var left int
	if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM accounts WHERE slug = 'beta'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("beta is still there (%d, %v)", left, err)
	}
}

// TestRotateTwiceAtOnce: a double-clicked "Rotate the secret" shows two
// new secrets; the one the receiver holds, and each shown, keep signing.
func TestRotateTwiceAtOnce(t *testing.T) {
	t.Parallel()
	var log logSink
	b := setup(t, loggingTo(&log))
	b.workHooks(t)
	rcv := notifytest.NewWebhookEndpoint(t)
	owner := b.client(&b.alice)
	const page = "/accounts/alpha/webhooks"
	owner.get(page)
	_, _, body := owner.post(page, url.Values{"url": {rcv.URL}, "events": {"room.opened"}})
	m := secretShown.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("adding the webhook: %s", body)
	}
	held := html.UnescapeString(m[1])
	rcv.SetSecrets(held)
	es, err := b.hooks.ListWebhooks(b.ctx, b.alice.ID, "alpha")
	if err != nil || len(es) != 1 {
		t.Fatal(es, err)
	}
	if _, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	first := rcv.Wait(t, 1, 10*time.Second)[0]
	got := make([]answered, 2)
	together(2, func(i int) {
		st, loc, body := owner.clone().post(fmt.Sprintf("%s/%d/rotate", page, es[0].ID), nil)
		got[i] = answered{st, loc, body}
	})
	noInternalError(t, "rotating twice at once", got, &log)
	secrets := []string{held}
	for _, a := range got {
		if m := secretShown.FindStringSubmatch(a.body); m != nil {
			secrets = append(secrets, html.UnescapeString(m[1]))
		}
	}
	rcv.SetSecrets(secrets...)
	if st, _, _ := owner.post(fmt.Sprintf("%s/messages/%s/again", page, first.ID), nil); st != 303 {
		t.Fatalf("send again: %d", st)
	}
	again := rcv.Wait(t, 2, 10*time.Second)[1]
	if len(secrets) != 3 || len(again.Verified) != 3 {
		t.Errorf("%d secrets shown after two rotations; %d of them sign the message sent again", len(secrets)-1, len(again.Verified))
	}
}
