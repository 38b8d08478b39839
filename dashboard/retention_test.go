package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestRetentionPages: what a person sees once the purge ran. The delivery
// log page says how long it keeps a line and shows the lines inside that
// period, not the one past it; a one-tap link of a room that ended within
// the period still says it was used, one past it says it is not valid and
// why it may be so, and a pending link still shows its card.
func TestRetentionPages(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.DeliveryLogDays = 90 })
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := b.pool.Exec(b.ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}

	// Alice's log: three test pushes; one was 100 days ago, one 89.
	dev := notifytest.NewPushEndpoint(t, b.vapidPublic).NewDevice(t, "laptop")
	if _, err := b.notify.Subscribe(b.ctx, b.alice.ID, app.PushSubscriptionInput{Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth}); err != nil {
		t.Fatal(err)
	}
	var jobs []int64
	for range 3 {
		if _, err := b.notify.SendTestPush(b.ctx, b.alice.ID, 0); err != nil {
			t.Fatal(err)
		}
		// The next test is allowed a minute after this one (app.TestPushEvery).
		exec(`UPDATE notification_deliveries SET created_at = created_at - interval '61 seconds' WHERE user_id = $1`, b.alice.ID)
	}
	rows, err := b.pool.Query(b.ctx, `SELECT job_id FROM notification_deliveries WHERE user_id = $1 ORDER BY job_id`, b.alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, id)
	}
	rows.Close()
	if len(jobs) != 3 {
		t.Fatalf("alice's log: %v", jobs)
	}
	exec(`UPDATE notification_deliveries SET created_at = now() - interval '100 days' WHERE user_id = $1 AND job_id = $2`, b.alice.ID, jobs[0])
	exec(`UPDATE notification_deliveries SET created_at = now() - interval '89 days' WHERE user_id = $1 AND job_id = $2`, b.alice.ID, jobs[1])

	anyone := b.client(nil)
	// Bob's links: one he answered in a room agreed 31 days ago, one in a
	// room agreed yesterday, one still pending.
	agreed := func(day int, ago time.Duration) (string, int64) {
		t.Helper()
		ta, _, roomID, hash, token := b.askedBeta("", day)
		anyone.get("/c/" + token) // the form's CSRF token
		if st, _, body := anyone.post("/c/"+token, url.Values{"subject_hash": {string(hash)}, "answer": {"confirm"}}); st != 200 {
			t.Fatalf("one-tap POST: %d %s", st, body)
		}
		ca, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, ta, "approve", hash)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, roomID, ca.ID, hash, true); err != nil || d.State != negotiation.StateAgreed {
			t.Fatalf("alice's approval: %+v, %v", d, err)
		}
		// As if it had happened then.
		exec(`UPDATE rooms SET opened_at = opened_at - $2::interval, updated_at = updated_at - $2::interval WHERE id = $1`, roomID, ago.String())
		return token, roomID
	}
	oldToken, _ := agreed(4, 31*24*time.Hour)
	keptToken, _ := agreed(5, 24*time.Hour)
	_, _, _, hash, pendingToken := b.askedBeta("", 6)

	if st, _, body := anyone.get("/c/" + oldToken); st != 200 || !strings.Contains(body, "This link was used on") {
		t.Fatalf("the old link before the purge: %d %s", st, body)
	}
	deleted, err := app.NewRetention(b.pool, app.RetentionPeriods{DeliveryLog: 90 * 24 * time.Hour, OneTap: 30 * 24 * time.Hour, Webhooks: 30 * 24 * time.Hour}).
		PurgeOld(b.ctx, time.Now(), time.Now().Add(time.Minute))
	if err != nil || deleted["notification_deliveries"] != 1 || deleted["onetap_tokens"] != 1 {
		t.Fatalf("the purge: %v, %v", deleted, err)
	}

	alice := b.client(&b.alice)
	st, _, body := alice.get("/settings/deliveries")
	line := func(job int64) bool { return strings.Contains(body, fmt.Sprintf(`data-delivery="%d"`, job)) }
	if st != 200 || line(jobs[0]) || !line(jobs[1]) || !line(jobs[2]) {
		t.Fatalf("the delivery log after the purge: %d, lines %v; want jobs %d and %d, not %d (100 days ago)", st,
			regexp.MustCompile(`data-delivery="(\d+)"`).FindAllString(body, -1), jobs[1], jobs[2], jobs[0])
	}
	if !strings.Contains(body, "Lines older than 90 days are deleted.") {
		t.Errorf("the delivery log does not say how long it keeps a line:\n%s", body)
	}

	for _, method := range []string{http.MethodGet, http.MethodPost} {
		var st int
		var body string
		if method == http.MethodGet {
			st, _, body = anyone.get("/c/" + oldToken)
		} else {
			st, _, body = anyone.post("/c/"+oldToken, url.Values{"subject_hash": {string(hash)}, "answer": {"confirm"}})
		}
		if st != http.StatusNotFound || !strings.Contains(body, "this link is not valid: it was never sent, or it was deleted 30 days after its room ended") {
			t.Errorf("%s of the link of the room agreed 31 days ago: %d %s", method, st, body)
		}
	}
	if st, _, body := anyone.get("/c/" + keptToken); st != 200 || !strings.Contains(body, "This link was used on") {
		t.Errorf("GET of the link of the room agreed yesterday: %d %s", st, body)
	}
	if st, _, body := anyone.post("/c/"+keptToken, url.Values{"subject_hash": {string(hash)}, "answer": {"confirm"}}); st != http.StatusConflict || !strings.Contains(body, "this link was used already") {
		t.Errorf("POST of the link of the room agreed yesterday: %d %s", st, body)
	}
	if st, _, body := anyone.get("/c/" + pendingToken); st != 200 || !strings.Contains(body, "Your agent asks you to approve") {
		t.Errorf("the pending link: %d %s", st, body)
	}
}
