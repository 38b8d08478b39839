package dashboard

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

var secretShown = regexp.MustCompile(`data-secret-value>(whsec_[^<]+)<`)

// TestWebhooksPage: an owner adds an endpoint (a bad URL is refused with
// its rule, nothing stored), sees its secret once, receives an event
// verified by the Standard Webhooks reference library, reads the delivery
// log, sends a message again (same webhook-id), rotates the secret (shown
// once) and deletes the endpoint; a member may do none of it.
func TestWebhooksPage(t *testing.T) {
	b := setup(t)
	b.workHooks(t)
	rcv := notifytest.NewWebhookEndpoint(t)
	owner := b.client(&b.alice)
	const page = "/accounts/alpha/webhooks"
	if st, _, body := owner.get(page); st != 200 || !strings.Contains(body, "No endpoint yet.") {
		t.Fatalf("the page: %d\n%s", st, body)
	}
	for raw, want := range map[string]string{"http://example.com/hooks": "url: must be https", "not a url": "url: is not an absolute URL",
		"https://u:p@example.com/": "url: must not hold a user name or password"} {
		st, _, body := owner.post(page, url.Values{"url": {raw}, "events": {"room.opened"}})
		if st != 400 || !strings.Contains(body, want) || !strings.Contains(body, `value="`+strings.ReplaceAll(raw, "&", "&amp;")+`"`) {
			t.Errorf("%q: %d, want 400 with %q and the URL kept in the form", raw, st, want)
		}
	}
	if st, _, body := owner.post(page, url.Values{"url": {rcv.URL}}); st != 400 || !strings.Contains(body, "events: choose at least one") {
		t.Errorf("no event: %d", st)
	}
	st, _, body := owner.post(page, url.Values{"url": {rcv.URL}, "events": {"room.opened", "room.closed"}})
	m := secretShown.FindStringSubmatch(body)
	if st != 200 || m == nil || !strings.Contains(body, `data-endpoint="`+rcv.URL+`"`) {
		t.Fatalf("add: %d\n%s", st, body)
	}
	secret := html.UnescapeString(m[1])
	rcv.SetSecrets(secret)
	if _, _, body := owner.get(page); strings.Contains(body, secret) || secretShown.MatchString(body) {
		t.Error("the secret is shown again")
	}
	es, err := b.hooks.ListWebhooks(b.ctx, b.alice.ID, "alpha")
	if err != nil || len(es) != 1 {
		t.Fatalf("listed: %+v %v", es, err)
	}
	logPage := fmt.Sprintf("%s/%d", page, es[0].ID)

	// An event, delivered and logged; sent again with its webhook-id.
	if _, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	first := rcv.Wait(t, 1, 10*time.Second)[0]
	if first.Type != "room.opened" || len(first.Verified) != 1 {
		t.Fatalf("received %+v", first)
	}
	var body2 string
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, _, body2 = owner.get(logPage)
		if strings.Contains(body2, `data-code="204"`) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the log shows no delivered attempt:\n%s", body2)
		}
	}
	if !strings.Contains(body2, `data-message="`+first.ID+`" data-status="sent"`) {
		t.Fatalf("the log:\n%s", body2)
	}
	if st, loc, _ := owner.post(fmt.Sprintf("%s/messages/%s/again", page, first.ID), nil); st != 303 || loc != logPage+"?done=again" {
		t.Fatalf("send again: %d %q", st, loc)
	}
	if again := rcv.Wait(t, 2, 10*time.Second)[1]; again.ID != first.ID || string(again.Body) != string(first.Body) {
		t.Errorf("sent again as %s, want %s with the same body", again.ID, first.ID)
	}

	// Rotation shows the new secret once; both verify for a day.
	owner.get(page)
	st, _, body = owner.post(fmt.Sprintf("%s/%d/rotate", page, es[0].ID), nil)
	m = secretShown.FindStringSubmatch(body)
	if st != 200 || m == nil || html.UnescapeString(m[1]) == secret || !strings.Contains(body, "keeps signing beside it for 24 hours") {
		t.Fatalf("rotate: %d\n%s", st, body)
	}
	rcv.SetSecrets(html.UnescapeString(m[1]), secret)
	owner.post(fmt.Sprintf("%s/messages/%s/again", page, first.ID), nil)
	if got := rcv.Wait(t, 3, 10*time.Second)[2]; len(got.Verified) != 2 {
		t.Errorf("after the rotation, verified by %v, want both secrets", got.Verified)
	}
	if _, _, body := owner.get(page); !strings.Contains(body, "(the previous one signs until ") || strings.Contains(body, "older ones sign too") {
		t.Errorf("after one rotation, the page:\n%s", body)
	}
	// Rotated again within the day: the first secret still signs, and the
	// page says until when the oldest does.
	second := html.UnescapeString(m[1])
	st, _, body = owner.post(fmt.Sprintf("%s/%d/rotate", page, es[0].ID), nil)
	m = secretShown.FindStringSubmatch(body)
	if st != 200 || m == nil || !strings.Contains(body, "(the previous one signs until ") || !strings.Contains(body, "(older ones sign too, the oldest until ") {
		t.Fatalf("rotate again: %d\n%s", st, body)
	}
	rcv.SetSecrets(html.UnescapeString(m[1]), second, secret)
	owner.post(fmt.Sprintf("%s/messages/%s/again", page, first.ID), nil)
	if got := rcv.Wait(t, 4, 10*time.Second)[3]; len(got.Verified) != 3 {
		t.Errorf("after two rotations, verified by %v, want all three secrets", got.Verified)
	}

	// A member: refused everywhere, nothing changed.
	if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha", "mo@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	mo, err := b.accounts.UserByEmail(b.ctx, "mo@example.test")
	if err != nil {
		t.Fatal(err)
	}
	member := b.client(&mo)
	member.get("/settings")
	for _, r := range []struct{ method, path string }{{"GET", page}, {"GET", logPage}, {"POST", page},
		{"POST", logPage + "/rotate"}, {"POST", logPage + "/delete"}, {"POST", page + "/messages/" + first.ID + "/again"}} {
		var st int
		var body string
		if r.method == "GET" {
			st, _, body = member.get(r.path)
		} else {
			st, _, body = member.post(r.path, url.Values{"url": {rcv.URL}, "events": {"room.opened"}})
		}
		if st != 403 || strings.Contains(body, "whsec_") {
			t.Errorf("a member: %s %s: %d", r.method, r.path, st)
		}
	}

	owner.get(page)
	if st, loc, _ := owner.post(logPage+"/delete", nil); st != 303 || loc != page+"?done=deleted" {
		t.Fatalf("delete: %d %q", st, loc)
	}
	if _, _, body := owner.get(page + "?done=deleted"); !strings.Contains(body, "The endpoint was deleted.") || strings.Contains(body, rcv.URL+`"`) {
		t.Errorf("after delete:\n%s", body)
	}
	if st, _, _ := owner.get(logPage); st != 404 {
		t.Errorf("the deleted endpoint's log: %d", st)
	}
}

// workHooks starts a River client on the bundle's database that works
// webhook jobs, sending to loopback.
func (b *bundle) workHooks(t *testing.T) {
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.WebhookWorker{Webhooks: b.hooks, Sender: notify.NewWebhookSender(true, nil),
		Backoff: []time.Duration{100 * time.Millisecond}})
	rc, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{Workers: workers, TestOnly: true,
		Queues: jobs.Queues(4, 4), FetchOnlyKnownKinds: true,
		FetchCooldown: 5 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(b.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rc.Stop(ctx)
	})
}
