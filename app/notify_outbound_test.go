package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestSlowPushEndpointsHoldUpNoMail: pushes go to URLs their users chose,
// which may take their time to answer (up to the push timeout, 15 s), and
// one person can make many ("Send a test" to 20 devices, as often as they
// like). Once every worker of the one queue held such a push, another
// tenant's confirmation request waited minutes for its mail (149 s on the
// running binary, behind ten presses of "Send a test"). Pushes are worked
// in a queue of their own: with all of them held by endpoints that do not
// answer, b's human is still mailed at once.
func TestSlowPushEndpointsHoldUpNoMail(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	release := make(chan struct{})
	var arrived, gaveUp atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body read, the server hears the pusher close the connection.
		_, _ = io.Copy(io.Discard, r.Body)
		arrived.Add(1)
		select {
		case <-release:
		case <-r.Context().Done(): // the pusher gave up waiting
			gaveUp.Add(1)
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) }) // before the server closes
	u, err := NewAccounts(nb.pool).UserByEmail(nb.ctx, "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxPushDevices {
		d := nb.push.NewDevice(t, "slow "+strconv.Itoa(i))
		if _, err := nb.svc.Subscribe(nb.ctx, u.ID, PushSubscriptionInput{Endpoint: slow.URL + "/push/" + strconv.Itoa(i),
			P256dh: d.P256dh, Auth: d.Auth, Device: "slow " + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := nb.svc.SendTestPush(nb.ctx, u.ID, 0); err != nil || n != MaxPushDevices {
		t.Fatalf("test push: %d devices, %v", n, err)
	}
	// As many pushes wait on the slow endpoint as the harness has workers.
	for i := 0; arrived.Load() < int64(MaxPushDevices); i++ {
		if i == 3000 {
			t.Fatalf("only %d of %d pushes reached the slow endpoint", arrived.Load(), MaxPushDevices)
		}
		time.Sleep(10 * time.Millisecond)
	}

	_, tb, v := nb.offerWithLimits(t, "Behind the pushes")
	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, negotiation.VerdictApprove, v.TermsOnTable.Options[0].SubjectHash); err != nil {
		t.Fatal(err)
	}
	nb.mailTo(t, "beta@example.test", 1)
	if n := gaveUp.Load(); n != 0 {
		t.Fatalf("b's mail waited until %d of a's pushes gave up on their endpoint", n)
	}
}
