package app

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// pushesWorked waits until every push job has been worked once: none
// waits to run or runs now (each is finished, or waits for a burst to end,
// jobs.PushCoalesce: River leaves a snoozed job available, scheduled
// later). An agent's next call comes after its tool's answer,
// which is enough for a worker to take the push of the last one.
func (nb *notifyBundle) pushesWorked(t *testing.T) {
	t.Helper()
	for i := 0; ; i++ {
		var busy int
		if err := nb.pool.QueryRow(nb.ctx, `SELECT count(*) FROM river_job WHERE kind = $1
			AND (state IN ('running', 'pending') OR (state IN ('available', 'scheduled', 'retryable') AND scheduled_at <= now()))`,
			jobs.PushArgs{}.Kind()).Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if busy == 0 {
			return
		}
		if i == 1500 {
			t.Fatalf("%d push jobs still to work after 15 s", busy)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// pushesTo are the pushes device d received, decoded.
func pushesTo(t *testing.T, ps []notifytest.Push, d *notifytest.Device) (got []notifytest.Push, payloads []notify.PushPayload) {
	t.Helper()
	for _, p := range ps {
		if p.Device != d.Name {
			continue
		}
		var pl notify.PushPayload
		if err := json.Unmarshal(p.Plaintext, &pl); err != nil {
			t.Fatal(err)
		}
		got, payloads = append(got, p), append(payloads, pl)
	}
	return got, payloads
}

// TestPushBurstSendsWhatIsCurrent: an agent that alternates ten requests
// (withdraw, approve, withdraw, …), each call after the last one's push
// was taken by a worker, made ten pushes to each of its human's devices,
// each still pending when sent, nine of them stale by the end; a phone
// offline meanwhile received all ten. Now each device gets the first at
// once and, once the burst is over, the one still pending; the other
// eight are skipped. Every push carries its room's Topic (RFC 8030: the
// push service keeps the newest undelivered one), 32 characters of
// base64url that name neither the room nor the device and differ between
// devices, and its room's tag (the browser shows the newest only).
func TestPushBurstSendsWhatIsCurrent(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	phone, laptop := nb.subscribe(t, "beta@example.test", "phone"), nb.subscribe(t, "beta@example.test", "laptop")
	_, tb, v := nb.offerWithLimits(t, "Burst")
	var first, last *ConfirmationView
	for i := range 10 {
		verdict, hash := negotiation.VerdictCancel, negotiation.SubjectHash("")
		if i%2 == 1 {
			verdict, hash = negotiation.VerdictApprove, v.TermsOnTable.Options[0].SubjectHash
		}
		cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, verdict, hash)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = cv
		}
		last = cv
		nb.pushesWorked(t)
	}
	nb.settle(t)
	all := nb.push.Pushes()
	tag := "taasky-room-" + strconv.FormatInt(v.RoomID, 10)
	topics := map[string]string{}
	for _, d := range []*notifytest.Device{phone, laptop} {
		got, pls := pushesTo(t, all, d)
		if len(got) != 2 {
			t.Fatalf("%s received %d pushes, want 2 (the first and the one pending): %s", d.Name, len(got), titles(pls))
		}
		if pls[0].Title != "agent asks you to withdraw from the negotiation" || pls[1].Title != "agent asks you to approve these terms" {
			t.Errorf("%s received %s, want the first request and the last", d.Name, titles(pls))
		}
		for i, p := range got {
			if pls[i].Tag != tag {
				t.Errorf("%s: tag %q, want %q", d.Name, pls[i].Tag, tag)
			}
			if len(p.Topic) != 32 || p.Topic != got[0].Topic {
				t.Errorf("%s: Topic %q, want 32 characters, the same for the room's pushes (%q)", d.Name, p.Topic, got[0].Topic)
			}
		}
		topics[d.Name] = got[0].Topic
	}
	if topics["phone"] == topics["laptop"] {
		t.Errorf("two devices have the same Topic %q: the push service would see they share a room", topics["phone"])
	}
	var sent, skipped int
	for _, l := range nb.log(t, "beta@example.test") {
		switch {
		case l.Channel != jobs.ChannelPush:
		case l.Status == jobs.StatusSent:
			sent++
			if l.ConfirmationID != first.ID && l.ConfirmationID != last.ID {
				t.Errorf("a request replaced before its push was sent was pushed: %+v", l)
			}
		case l.Status == jobs.StatusSkipped && l.Error == "the confirmation is no longer pending":
			skipped++
		default:
			t.Errorf("push log line %+v", l)
		}
	}
	if sent != 4 || skipped != 16 {
		t.Errorf("the delivery log: %d pushes sent, %d skipped; want 4 and 16", sent, skipped)
	}
}

func titles(pls []notify.PushPayload) []string {
	var ts []string
	for _, p := range pls {
		ts = append(ts, p.Title)
	}
	return ts
}

// TestAnsweredRequestIsNotPushed: a request that follows another in the
// same room waits for the burst to end (jobs.PushCoalesce); answered in
// the meantime (here from the dashboard), it is never pushed: the phone
// does not ask for what is already decided. Its log line says why.
func TestAnsweredRequestIsNotPushed(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	phone := nb.subscribe(t, "beta@example.test", "phone")
	_, tb, v := nb.offerWithLimits(t, "Answered")
	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, negotiation.VerdictCancel, ""); err != nil {
		t.Fatal(err)
	}
	nb.pushesWorked(t)
	hash := v.TermsOnTable.Options[0].SubjectHash
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	nb.pushesWorked(t)
	if _, err := nb.rooms.DecideAsOwner(nb.ctx, nb.b.OwnerUserID, v.RoomID, cv.ID, hash, false); err != nil {
		t.Fatal(err)
	}
	nb.settle(t)
	if got, pls := pushesTo(t, nb.push.Pushes(), phone); len(got) != 1 || pls[0].Title != "agent asks you to withdraw from the negotiation" {
		t.Errorf("the phone received %s, want only the first request", titles(pls))
	}
	for _, l := range nb.log(t, "beta@example.test") {
		if l.Channel == jobs.ChannelPush && l.ConfirmationID == cv.ID &&
			(l.Status != jobs.StatusSkipped || l.Error != "the confirmation is no longer pending") {
			t.Errorf("the answered request's push: %+v", l)
		}
	}
}
