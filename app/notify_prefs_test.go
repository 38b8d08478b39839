package app

import (
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
)

// TestPrefsAndSubscriptions: preferences default on and are kept; a
// browser's subscription is validated, updated when it subscribes again,
// and moves to another user who subscribes on it.
func TestPrefsAndSubscriptions(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	a, b := nb.a.OwnerUserID, nb.b.OwnerUserID
	p, err := nb.svc.Prefs(nb.ctx, a)
	if err != nil || p != DefaultNotifyPrefs {
		t.Fatalf("default prefs %+v %v", p, err)
	}
	p.PushNotices = false
	if err := nb.svc.SetPrefs(nb.ctx, a, p); err != nil {
		t.Fatal(err)
	}
	if got, _ := nb.svc.Prefs(nb.ctx, a); got != p {
		t.Fatalf("prefs %+v, want %+v", got, p)
	}
	if !p.allows(jobs.ChannelPush, jobs.TopicRequest) || p.allows(jobs.ChannelPush, jobs.TopicAgreed) || !p.allows(jobs.ChannelEmail, jobs.TopicReminder) {
		t.Fatal("allows")
	}
	if err := nb.svc.SetPrefs(nb.ctx, 1<<40, p); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("prefs of nobody: %v", err)
	}

	dev := nb.push.NewDevice(t, "laptop")
	in := PushSubscriptionInput{Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth, Device: "  Firefox  "}
	for _, bad := range []PushSubscriptionInput{
		{Endpoint: "ftp://x", P256dh: dev.P256dh, Auth: dev.Auth},
		// A push service is https (the refusal says so); plain http only on
		// this machine, as the tests' endpoint is.
		{Endpoint: "http://push.example.com/wp/1", P256dh: dev.P256dh, Auth: dev.Auth},
		{Endpoint: dev.Endpoint, P256dh: "AAAA", Auth: dev.Auth},
		{Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: "short"},
	} {
		if _, err := nb.svc.Subscribe(nb.ctx, a, bad); ErrorCodeOf(err) != ErrInvalid {
			t.Errorf("subscribe %+v: %v", bad, err)
		}
	}
	s1, err := nb.svc.Subscribe(nb.ctx, a, in)
	if err != nil || s1.Device != "Firefox" {
		t.Fatalf("subscribe: %+v %v", s1, err)
	}
	s2, err := nb.svc.Subscribe(nb.ctx, a, in) // again: the same row
	if err != nil || s2.ID != s1.ID {
		t.Fatalf("subscribe again: %+v %v", s2, err)
	}
	if _, err := nb.svc.Subscribe(nb.ctx, b, in); err != nil { // b on the same browser
		t.Fatal(err)
	}
	if subs, _ := nb.svc.PushSubscriptions(nb.ctx, a); len(subs) != 0 {
		t.Fatalf("a still has %+v", subs)
	}
	if err := nb.svc.Unsubscribe(nb.ctx, b, 0, dev.Endpoint); err != nil {
		t.Fatal(err)
	}
	if subs, _ := nb.svc.PushSubscriptions(nb.ctx, b); len(subs) != 0 {
		t.Fatalf("b still has %+v", subs)
	}
	if _, err := nb.svc.SendTestPush(nb.ctx, b, 0); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("a test push without a device: %v", err)
	}
	if log, err := nb.svc.DeliveryLog(nb.ctx, b, 10, time.Time{}); err != nil || len(log) != 0 {
		t.Fatalf("log %+v %v", log, err)
	}
}
