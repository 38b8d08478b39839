package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/taasky/taasky/notify/notifytest"
)

// TestPushDevicesCap: a person gets Web Push on at most 20 devices. Every
// notification is a push job per device, so without a cap one signed-in
// person posting endpoints grew the table, and the queue every tenant's
// notifications share, without end. Past the cap a new device is refused
// with the rule, in the reader's language, and nothing is stored; the same
// device again (new keys) still goes through; removing one makes room;
// subscriptions racing for the last places take exactly those.
func TestPushDevicesCap(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const maxDevices = 20
	push := notifytest.NewPushEndpoint(t, b.vapidPublic)
	form := func(d *notifytest.Device) url.Values {
		return url.Values{"endpoint": {d.Endpoint}, "p256dh": {d.P256dh}, "auth": {d.Auth}, "device": {"a browser"}}
	}
	alice := b.client(&b.alice)
	alice.get("/settings")
	var first *notifytest.Device
	for i := range maxDevices - 4 {
		d := push.NewDevice(t, "d")
		if i == 0 {
			first = d
		}
		if st, _, _ := alice.post("/settings/push", form(d)); st != http.StatusSeeOther {
			t.Fatalf("device %d: %d", i, st)
		}
	}
	// 12 browsers at once for the 4 places left.
	var wg sync.WaitGroup
	statuses := make([]int, 12)
	bodies := make([]string, 12)
	for i := range statuses {
		cl := b.client(&b.alice)
		cl.get("/settings")
		d := push.NewDevice(t, "d")
		wg.Go(func() { statuses[i], _, bodies[i] = cl.post("/settings/push", form(d)) })
	}
	wg.Wait()
	const rule = "device: at most 20 devices get your notifications; remove one under Web Push first"
	ok, refused := 0, 0
	for i, st := range statuses {
		switch {
		case st == http.StatusSeeOther:
			ok++
		case st == http.StatusConflict && strings.Contains(bodies[i], rule):
			refused++
		default:
			t.Errorf("subscription %d: %d\n%s", i, st, bodies[i])
		}
	}
	count := func() int {
		subs, err := b.notify.PushSubscriptions(b.ctx, b.alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(subs)
	}
	if ok != 4 || refused != 8 || count() != maxDevices {
		t.Fatalf("%d subscribed, %d refused, %d devices; want 4, 8, %d", ok, refused, count(), maxDevices)
	}
	// In the reader's language.
	de := b.client(&b.alice)
	de.lang = "de"
	de.get("/settings")
	if st, _, body := de.post("/settings/push", form(push.NewDevice(t, "d"))); st != http.StatusConflict ||
		!strings.Contains(body, "höchstens 20 Geräte") {
		t.Fatalf("in German: %d\n%s", st, body)
	}
	// The same browser again (its keys renewed) is not a new device.
	again := push.NewDevice(t, "d")
	again.Endpoint = first.Endpoint
	if st, _, _ := alice.post("/settings/push", form(again)); st != http.StatusSeeOther || count() != maxDevices {
		t.Fatalf("the same device again: %d, %d devices", st, count())
	}
	// Removing one makes room for one.
	if st, _, _ := alice.post("/settings/push/remove", url.Values{"endpoint": {first.Endpoint}}); st != http.StatusSeeOther {
		t.Fatalf("remove: %d", st)
	}
	if st, _, _ := alice.post("/settings/push", form(push.NewDevice(t, "d"))); st != http.StatusSeeOther || count() != maxDevices {
		t.Fatalf("after a removal: %d, %d devices", st, count())
	}
	// Another person is not held by Alice's devices.
	bob := b.client(&b.bob)
	bob.get("/settings")
	if st, _, _ := bob.post("/settings/push", form(push.NewDevice(t, "d"))); st != http.StatusSeeOther {
		t.Fatalf("bob: %d", st)
	}
}
