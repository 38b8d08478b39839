package trust

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestWebhooksAcrossAKilledWorker: a webhook held mid-delivery by a worker
// killed with SIGKILL (the endpoint has the request, the worker never
// hears its answer) is sent again by another worker with the same
// webhook-id and the same bytes; every event reaches both accounts'
// endpoints, each request verified by the Standard Webhooks reference
// library; a duplicate is only ever a repeated webhook-id.
func TestWebhooksAcrossAKilledWorker(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn := pgtest.NewDSN(t)
	smtp := notifytest.NewSMTPServer(t)
	mail := fmt.Sprintf("SMTP_URL=smtp://%s:%d", smtp.Host, smtp.Port)
	a := newProcess(t, dsn, mail, "MCP_RATE_LIMIT=0", "COUNTER_COOLDOWN=0")
	a.start()
	w := newWorld(t, dsn, a.base)
	hooks := app.NewWebhooks(app.WebhooksConfig{Pool: w.pool, Rooms: w.rooms, BaseURL: a.base})
	l := newCrashLoad(t, w)
	ra, rb := newRemote(t, w, a.base, "hooks0"), newRemote(t, w, a.base, "hooks1")
	rcv := map[string]*notifytest.WebhookEndpoint{}
	endpoint := map[string]int64{}
	for _, r := range []*remote{ra, rb} {
		rcv[r.slug] = notifytest.NewWebhookEndpoint(t)
		var events []string
		for _, e := range app.WebhookEvents {
			events = append(events, string(e))
		}
		e, secret, err := hooks.CreateWebhook(context.Background(), r.user.ID, r.slug, rcv[r.slug].URL, events)
		if err != nil {
			t.Fatal(err)
		}
		rcv[r.slug].SetSecrets(secret)
		endpoint[r.slug] = e.ID
	}
	rcv[ra.slug].HangNext(1) // room.opened: held by A until A dies

	if err := l.negotiate(context.Background(), ra, rb, 0); err != nil {
		t.Fatalf("negotiate: %v", err)
	}
	rcv[ra.slug].Wait(t, 1, 30*time.Second)
	const running = `SELECT count(*) FROM river_job WHERE kind = 'webhook' AND state = 'running'`
	for deadline := time.Now().Add(30 * time.Second); countRows(t, w, running) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no webhook job running on A")
		}
	}
	killed := time.Now()
	a.kill()
	for countRows(t, w, leaseLocks) != 0 {
		if time.Since(killed) > 30*time.Second {
			t.Fatal("A's lease is still held 30 s after its kill")
		}
		time.Sleep(20 * time.Millisecond)
	}
	b := newProcess(t, dsn, mail)
	b.args = []string{"--web=false"}
	b.ready = func() bool { return countRows(t, w, leaseLocks) == 1 }
	b.start()
	up := time.Now()
	const unfinished = `SELECT count(*) FROM river_job WHERE kind = 'webhook' AND state NOT IN ('completed', 'discarded', 'cancelled')`
	for countRows(t, w, unfinished) > 0 {
		if time.Since(up) > 2*time.Minute {
			t.Fatalf("%d webhook jobs unfinished 2 min after B was up", countRows(t, w, unfinished))
		}
		time.Sleep(50 * time.Millisecond)
	}

	messages, requests, dupes, redelivered := 0, 0, 0, time.Duration(0)
	for _, r := range []*remote{ra, rb} {
		_, log, err := hooks.WebhookLog(context.Background(), r.user.ID, r.slug, endpoint[r.slug])
		if err != nil {
			t.Fatal(err)
		}
		got := rcv[r.slug].Received()
		requests += len(got)
		byID := map[string][]notifytest.Webhook{}
		for _, h := range got {
			if len(h.Verified) == 0 {
				t.Errorf("%s: %s not verified by the reference library", r.slug, h.ID)
			}
			byID[h.ID] = append(byID[h.ID], h)
		}
		written := map[string]bool{}
		for _, m := range log {
			messages++
			written[m.ID] = true
			hs := byID[m.ID]
			ok := false
			for _, h := range hs {
				ok = ok || h.Answered == 204
				if !bytes.Equal(h.Body, hs[0].Body) {
					t.Errorf("%s: %s sent with two bodies", r.slug, m.ID)
				}
			}
			if !ok {
				t.Errorf("%s: %s (%s) never delivered: %d requests", r.slug, m.ID, m.Event, len(hs))
			}
			if len(hs) > 1 {
				dupes += len(hs) - 1
				if hs[0].Answered == 0 {
					redelivered = hs[len(hs)-1].At.Sub(killed)
				}
			}
		}
		for id := range byID {
			if !written[id] {
				t.Errorf("%s: received %s, which was not written for it", r.slug, id)
			}
		}
	}
	if redelivered == 0 {
		t.Error("the webhook held by the killed worker was not sent again")
	}
	t.Logf("webhooks across a kill: %d messages to 2 endpoints, %d requests, %d duplicates (each the same webhook-id and bytes); "+
		"the one held by the killed worker sent again %s after the kill (%s after B was up)",
		messages, requests, dupes, redelivered.Round(10*time.Millisecond), (redelivered - up.Sub(killed)).Round(10*time.Millisecond))
}
