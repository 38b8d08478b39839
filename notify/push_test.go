package notify

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/taasky/taasky/notify/notifytest"
)

// TestPushGuard: an endpoint is whatever a signed-in user saved, so a
// Pusher dials no loopback or private address unless AllowInternal (dev,
// tests); and what an endpoint answers is never passed on, only its status.
func TestPushGuard(t *testing.T) {
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		t.Fatal(err)
	}
	vapid := VAPID{PublicKey: pub, PrivateKey: priv, Subscriber: "taasky@example.test"}
	dev := notifytest.NewPushEndpoint(t, pub).NewDevice(t, "laptop")
	target := PushTarget{Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth}
	ctx := context.Background()

	var hits atomic.Int32
	admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "INTERNAL-ADMIN-SECRET db_password=hunter2", http.StatusForbidden)
	}))
	t.Cleanup(admin.Close)
	inside := PushTarget{Endpoint: admin.URL + "/admin", P256dh: dev.P256dh, Auth: dev.Auth}

	guarded := &Pusher{VAPID: vapid}
	for _, tg := range []PushTarget{target, inside} {
		var perm *PermanentError
		if err := guarded.Send(ctx, tg, []byte(`{}`), OptionsFor(KindTest)); !errors.As(err, &perm) || !strings.Contains(err.Error(), "private or loopback address") {
			t.Errorf("a guarded pusher to %s: %v", tg.Endpoint, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the internal server was called %d times", hits.Load())
	}

	open := &Pusher{VAPID: vapid, AllowInternal: true}
	if err := open.Send(ctx, target, []byte(`{"title":"t"}`), OptionsFor(KindTest)); err != nil {
		t.Fatalf("to the test endpoint, internal allowed: %v", err)
	}
	err = open.Send(ctx, inside, []byte(`{}`), OptionsFor(KindTest))
	var perm *PermanentError
	if !errors.As(err, &perm) || perm.Err.Error() != "push service: 403 Forbidden" {
		t.Errorf("a 403 with a body: %v", err)
	}
}

// TestPushErrorHoldsNoEndpoint: a push that gets no answer fails with an
// error that River logs and keeps in its job list, which operators read;
// the endpoint's path is the subscription's capability URL (the delivery
// log shows only its host), so the error names the failure, not the URL.
func TestPushErrorHoldsNoEndpoint(t *testing.T) {
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		t.Fatal(err)
	}
	vapid := VAPID{PublicKey: pub, PrivateKey: priv, Subscriber: "taasky@example.test"}
	dev := notifytest.NewPushEndpoint(t, pub).NewDevice(t, "laptop")
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // nothing listens there any more
	const secret = "fcm-send-SUBSCRIPTION-CAPABILITY-0123456789"
	tg := PushTarget{Endpoint: closed.URL + "/push/" + secret, P256dh: dev.P256dh, Auth: dev.Auth}
	for _, p := range []*Pusher{{VAPID: vapid, AllowInternal: true}, {VAPID: vapid}} {
		err := p.Send(context.Background(), tg, []byte(`{}`), OptionsFor(KindTest))
		if err == nil {
			t.Fatal("a push to a closed port succeeded")
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error holds the endpoint: %v", err)
		}
	}
}
