package app

import (
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
)

// TestRescuedJobSendsNothingTwice: a job worked again after its message
// was accepted and logged — what River does with a job whose process was
// killed before its completion was recorded — sends nothing, for a
// confirmation request, an invitation and a push, through River's real
// workers, PostgreSQL and the SMTP and push endpoints. The log stays as the
// first attempt wrote it, and the request issues no second one-tap link.
func TestRescuedJobSendsNothingTwice(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.subscribe(t, "beta@example.test", "phone")
	ta, _ := nb.openJoined(t, OpenInput{}, "")
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, "cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Title: "Lunch", InviteEmail: "pat@example.test"}); err != nil {
		t.Fatal(err)
	}
	if n, err := nb.svc.SendTestPush(nb.ctx, nb.b.OwnerUserID, 0); err != nil || n != 1 {
		t.Fatalf("test push: %d %v", n, err)
	}
	nb.mailTo(t, "alpha@example.test", 1)
	nb.mailTo(t, "pat@example.test", 1)
	nb.push.Wait(t, 1, 10*time.Second)

	kinds := []string{"notify_email", "notify_invite", "notify_push"}
	ids := map[string]int64{}
	for _, kind := range kinds {
		ids[kind] = nb.waitJob(t, kind, 1)
	}
	before := map[string][]Delivery{"alpha": nb.log(t, "alpha@example.test"), "beta": nb.log(t, "beta@example.test")}
	for _, kind := range kinds {
		// As River's rescuer leaves it: back to available, the attempt spent.
		if _, err := nb.pool.Exec(nb.ctx, `UPDATE river_job SET state = 'available', finalized_at = NULL, scheduled_at = now()
			WHERE id = $1`, ids[kind]); err != nil {
			t.Fatal(err)
		}
	}
	for _, kind := range kinds {
		nb.waitJob(t, kind, 2)
	}
	nb.settle(t) // a wrong send would be done by now
	if got := len(nb.smtp.Mails()); got != 2 {
		t.Errorf("%d mails, want 2 (the request and the invitation, once each)", got)
	}
	if got := len(nb.push.Pushes()); got != 1 {
		t.Errorf("%d pushes, want 1", got)
	}
	var tokens int
	if err := nb.pool.QueryRow(nb.ctx, `SELECT count(*) FROM onetap_tokens WHERE confirmation_id = $1`, cv.ID).Scan(&tokens); err != nil || tokens != 1 {
		t.Errorf("%d one-tap links for the request (%v), want 1", tokens, err)
	}
	for who, addr := range map[string]string{"alpha": "alpha@example.test", "beta": "beta@example.test"} {
		after := nb.log(t, addr)
		if len(after) != len(before[who]) {
			t.Fatalf("%s's log: %+v, was %+v", who, after, before[who])
		}
		for i, d := range after {
			if d.Status != jobs.StatusSent || d.Attempts != 1 || d != before[who][i] {
				t.Errorf("%s's log line %d: %+v, was %+v", who, i, d, before[who][i])
			}
		}
	}
}

// waitJob waits until the only job of kind is completed at attempt, and
// returns its id.
func (nb *notifyBundle) waitJob(t *testing.T, kind string, attempt int) int64 {
	t.Helper()
	var id int64
	var state string
	var got int
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if err := nb.pool.QueryRow(nb.ctx, `SELECT id, state, attempt FROM river_job WHERE kind = $1`, kind).Scan(&id, &state, &got); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if state == "completed" && got == attempt {
			return id
		}
	}
	t.Fatalf("%s: job %d %s at attempt %d, want completed at attempt %d", kind, id, state, got, attempt)
	return 0
}
