package app

import (
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/ratelimit"
	"github.com/taasky/taasky/jobs"
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
	// As many pushes wait on the slow endpoint as one person may hold of
	// the outbound workers (jobs.OutboundPerOwner; the rest are snoozed).
	for i := 0; arrived.Load() < jobs.OutboundPerOwner; i++ {
		if i == 3000 {
			t.Fatalf("only %d of %d pushes reached the slow endpoint", arrived.Load(), jobs.OutboundPerOwner)
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

// TestSlowWebhookEndpointsHoldUpNoOtherAccount: every account's webhooks
// share the outbound queue's workers, and River fetches its jobs oldest
// first. One account whose endpoints never answer (each attempt waits the
// webhook timeout, 10 s) and whose agents kept moving held every worker,
// and another account's webhook waited behind its backlog (more than 120 s
// on the running binary). Now an account holds at most
// jobs.OutboundPerOwner workers of a process (its other jobs are snoozed,
// no attempt spent), and its webhooks past its pace (hookPace) are queued
// at jobs.PriorityBulk, behind other accounts': beta's webhook is sent
// while every one of alpha's attempts still waits on its endpoint.
func TestSlowWebhookEndpointsHoldUpNoOtherAccount(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	const pace = 3 // alpha's webhooks queued at full priority, at once
	nb.rooms.hookPace = ratelimit.New[int64](ratelimit.Limit{Rate: 0.001, Burst: pace}, 10, time.Now)
	release := make(chan struct{})
	var arrived, gaveUp atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived.Add(1)
		select {
		case <-release:
		case <-r.Context().Done(): // the sender gave up waiting
			gaveUp.Add(1)
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) }) // before the server closes
	const endpoints, rooms = 5, 6        // 30 of alpha's webhooks: more than the harness's 20 workers
	for i := range endpoints {
		if _, _, err := nb.hooks.CreateWebhook(nb.ctx, nb.a.OwnerUserID, "alpha", slow.URL+"/hook/"+strconv.Itoa(i), []string{string(HookRoomOpened), string(HookRoomJoined)}); err != nil {
			t.Fatal(err)
		}
	}
	var codes []string
	for range rooms {
		open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Title: "Hooks"})
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, open.InviteCode)
	}
	for i := 0; arrived.Load() < jobs.OutboundPerOwner; i++ {
		if i == 3000 {
			t.Fatalf("only %d of alpha's webhooks reached its endpoints", arrived.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	rcv, _, _ := nb.hookEndpoint(t, nb.b.OwnerUserID, "beta")
	if _, err := nb.rooms.Join(nb.ctx, nb.b, JoinInput{InviteCode: codes[0], Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	got := rcv.Wait(t, 1, 20*time.Second)
	if got[0].Type != string(HookRoomJoined) {
		t.Errorf("beta's webhook: %+v", got[0])
	}
	if n := gaveUp.Load(); n != 0 {
		t.Fatalf("beta's webhook waited until %d of alpha's attempts gave up on their endpoints", n)
	}
	if n := arrived.Load(); n > jobs.OutboundPerOwner {
		t.Errorf("alpha's endpoints held %d workers at once, more than its share of %d", n, jobs.OutboundPerOwner)
	}
	// alpha's webhooks past its pace wait behind everyone else's.
	byPriority := map[string]map[int]int{}
	rows, err := nb.pool.Query(nb.ctx, `SELECT args->>'account_id', priority, count(*) FROM river_job WHERE kind = 'webhook' GROUP BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var acct string
		var prio, n int
		if err := rows.Scan(&acct, &prio, &n); err != nil {
			t.Fatal(err)
		}
		if byPriority[acct] == nil {
			byPriority[acct] = map[int]int{}
		}
		byPriority[acct][prio] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	alpha, beta := strconv.FormatInt(nb.a.AccountID, 10), strconv.FormatInt(nb.b.AccountID, 10)
	if want := map[int]int{1: pace, jobs.PriorityBulk: endpoints*(rooms+1) - pace}; !maps.Equal(byPriority[alpha], want) {
		t.Errorf("alpha's webhook jobs by priority: %v, want %v", byPriority[alpha], want)
	}
	if want := map[int]int{1: 1}; !maps.Equal(byPriority[beta], want) {
		t.Errorf("beta's webhook jobs by priority: %v, want %v", byPriority[beta], want)
	}
}
