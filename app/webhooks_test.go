package app

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/netguard"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify/notifytest"
)

// hookEndpoint adds an endpoint for every event to the account whose
// owner is userID, on a new receiver that verifies with its secret.
func (nb *notifyBundle) hookEndpoint(t *testing.T, userID int64, slug string) (*notifytest.WebhookEndpoint, WebhookEndpoint, string) {
	t.Helper()
	rcv := notifytest.NewWebhookEndpoint(t)
	e, secret, err := nb.hooks.CreateWebhook(nb.ctx, userID, slug, rcv.URL, eventStrings(WebhookEvents))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q", secret)
	}
	rcv.SetSecrets(secret)
	return rcv, e, secret
}

// settleHooks waits until no webhook job is due (finished, or a retry
// scheduled later than a second from now).
func (nb *notifyBundle) settleHooks(t *testing.T) {
	t.Helper()
	end := time.Now().Add(20 * time.Second)
	for {
		var due int
		// Due: within a second, or snoozed (no error yet: the account was at
		// its share of the outbound queue, jobs.OutboundShare, which snoozes
		// a job for a second, doubling, under load), not a retry left for
		// its later attempt.
		if err := nb.pool.QueryRow(nb.ctx, `SELECT count(*) FROM river_job WHERE kind = ANY($1)
			AND state NOT IN ('completed', 'cancelled', 'discarded')
			AND (scheduled_at < now() + interval '1 second' OR coalesce(cardinality(errors), 0) = 0)`,
			[]string{jobs.WebhookArgs{}.Kind(), jobs.WebhookDisabledArgs{}.Kind()}).Scan(&due); err != nil {
			t.Fatal(err)
		}
		if due == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%d webhook jobs still due after 20 s", due)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// messagesOf lists the webhook-ids and events written for an endpoint.
func (nb *notifyBundle) messagesOf(t *testing.T, accountOwner int64, slug string, id int64) map[string]WebhookEvent {
	t.Helper()
	_, ms, err := nb.hooks.WebhookLog(nb.ctx, accountOwner, slug, id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]WebhookEvent{}
	for _, m := range ms {
		out[m.ID] = m.Event
	}
	return out
}

// hashes and clockMoments are taken out of a payload before it is searched
// for limits: hex hashes hold a needle's digits now and then, and the
// moments the rooms' clock gives (the event's, the deadline, check_after)
// hold its minutes and seconds ("05:09:13" holds "09:13"). Moments of the
// limits' day (2026-10-14: terms, and a limit if one leaked) stay.
var (
	hashes       = regexp.MustCompile(`sha256:[0-9a-f]{64}`)
	clockMoments = regexp.MustCompile(`20\d\d-\d\d-\d\dT[0-9:.]+Z`)
)

func searchable(payload []byte) []byte {
	out := hashes.ReplaceAll(payload, []byte("[hash]"))
	return clockMoments.ReplaceAllFunc(out, func(m []byte) []byte {
		if bytes.HasPrefix(m, []byte("2026-10-14")) {
			return m
		}
		return []byte("[moment]")
	})
}

// TestWebhooksSignedRetriedOwnSide: each side's endpoint receives every
// event of its side, signed (the Standard Webhooks reference library
// verifies each request), through failures that recover (retried with the
// same webhook-id and the same bytes); a payload is the side's own view
// and holds no limit of either side.
func TestWebhooksSignedRetriedOwnSide(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.clockOffLimits()
	ra, ea, _ := nb.hookEndpoint(t, nb.a.OwnerUserID, "alpha")
	rb, eb, _ := nb.hookEndpoint(t, nb.b.OwnerUserID, "beta")
	ra.FailNext(3)
	rb.FailNext(2)

	ta, tb, v := nb.offerWithLimits(t, "Hooks")
	hash := v.TermsOnTable.Options[0].SubjectHash
	for _, side := range []struct {
		agent Agent
		token string
	}{{nb.b, tb}, {nb.a, ta}} {
		cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, side.agent, side.token, "approve", hash)
		if err != nil {
			t.Fatal(err)
		}
		nb.confirm(t, side.agent, side.token, cv)
	}
	nb.settleHooks(t)

	wantEvents := map[string][]WebhookEvent{
		"alpha": {HookRoomOpened, HookRoomJoined, HookRoomMoved, HookConfRequested, HookConfAnswered, HookRoomAgreed},
		"beta":  {HookRoomJoined, HookRoomMoved, HookConfRequested, HookConfAnswered, HookRoomAgreed},
	}
	deliveries, requests, retried, dupes := 0, 0, 0, 0
	for _, c := range []struct {
		slug  string
		owner int64
		rcv   *notifytest.WebhookEndpoint
		e     WebhookEndpoint
		side  string
	}{{"alpha", nb.a.OwnerUserID, ra, ea, "a"}, {"beta", nb.b.OwnerUserID, rb, eb, "b"}} {
		written := nb.messagesOf(t, c.owner, c.slug, c.e.ID)
		var events []WebhookEvent
		for _, ev := range written {
			if !slices.Contains(events, ev) {
				events = append(events, ev)
			}
		}
		for _, want := range wantEvents[c.slug] {
			if !slices.Contains(events, want) {
				t.Errorf("%s: no %s written (%v)", c.slug, want, events)
			}
		}
		if slices.Contains(events, HookRoomOpened) && c.slug == "beta" {
			t.Errorf("beta was told of the open")
		}
		bodies := map[string][]byte{}
		delivered := map[string]int{}
		for _, h := range c.rcv.Received() {
			requests++
			if len(h.Verified) == 0 {
				t.Errorf("%s: %s not verified by the reference library", c.slug, h.ID)
				continue
			}
			if _, ok := written[h.ID]; !ok {
				t.Errorf("%s: received %s, which was not written for it", c.slug, h.ID)
			}
			if b, ok := bodies[h.ID]; ok && !bytes.Equal(b, h.Body) {
				t.Errorf("%s: %s sent with two bodies:\n%s\n%s", c.slug, h.ID, b, h.Body)
			}
			bodies[h.ID] = h.Body
			if h.Answered < 300 {
				delivered[h.ID]++
			} else {
				retried++
			}
			var p HookPayload
			if err := json.Unmarshal(h.Body, &p); err != nil {
				t.Fatalf("%s: %v", c.slug, err)
			}
			if string(p.Data.Side) != c.side || p.Data.Room == nil || p.Type != written[h.ID] {
				t.Errorf("%s: payload of %s: side %q, type %q (written %q)", c.slug, h.ID, p.Data.Side, p.Type, written[h.ID])
			}
			if p.Type == HookRoomAgreed {
				if _, err := testReceiptKeys(t).Verify(p.Data.Receipt); err != nil {
					t.Errorf("%s: room.agreed's receipt: %v (%q)", c.slug, err, p.Data.Receipt)
				}
			} else if p.Data.Receipt != "" {
				t.Errorf("%s: %s carries a receipt", c.slug, p.Type)
			}
			clean := searchable(h.Body)
			for _, needle := range limitNeedles {
				if bytes.Contains(clean, []byte(needle)) {
					t.Errorf("%s: payload %s holds %q (a limit):\n%s", c.slug, p.Type, needle, h.Body)
				}
			}
			if p.Type == HookRoomMoved && c.side == "b" && p.Data.Room.TermsOnTable != nil {
				if len(p.Data.Room.TermsOnTable.Options[0].OutsideYourLimits) == 0 {
					t.Errorf("beta's view of a's offer has no outside_your_limits flag: %s", h.Body)
				}
			}
		}
		for id := range written {
			switch n := delivered[id]; {
			case n == 0:
				t.Errorf("%s: %s (%s) never delivered", c.slug, id, written[id])
			case n > 1:
				dupes += n - 1
			}
		}
		deliveries += len(written)
		_, log, err := nb.hooks.WebhookLog(nb.ctx, c.owner, c.slug, c.e.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range log {
			if m.Status != string(jobs.StatusSent) || len(m.Attempts) == 0 || m.Attempts[len(m.Attempts)-1].StatusCode != 204 {
				t.Errorf("%s: log of %s: %+v", c.slug, m.ID, m)
			}
		}
	}
	if retried != 5 {
		t.Errorf("%d failed attempts, want 5 (3 + 2 answered 503)", retried)
	}
	// What the database keeps of them, as a backup read without SECRET_KEY
	// has it: no body, and so none of beta's outside_your_limits flags
	// (which tabled terms broke its limits: an order on its sealed limits).
	if held := tablesHolding(t, nb.ctx, nb.pool, map[string]string{"flag": "outside_your_limits", "body": `"room_url":"`}); len(held) > 0 {
		t.Errorf("the database holds the webhooks' bodies in the clear: %v", held)
	}
	t.Logf("webhooks: %d messages to 2 endpoints, %d requests, %d answered 503 and retried, %d delivered twice; every request verified by the reference library",
		deliveries, requests, retried, dupes)
}

// TestWebhookURLsRefused: a URL that is invalid, not https or private is
// refused when saved, naming the field; so are bad events and a member's
// try. Nothing is stored.
func TestWebhookURLsRefused(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	w := NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, CheckHost: netguard.CheckHost})
	owner := rb.a.OwnerUserID
	all := eventStrings(WebhookEvents)
	for _, c := range []struct {
		url    string
		events []string
		want   string
	}{
		{"", all, "url: is required"},
		{"example.com/hooks", all, "url: is not an absolute URL"},
		{"http://example.com/hooks", all, "url: must be https"},
		{"http://127.0.0.1:9/hooks", all, "url: must be https"},
		{"ftp://example.com/hooks", all, "url: must be https"},
		{"https://user:pw@example.com/hooks", all, "url: must not hold a user name"},
		{"https://example.com/hooks#x", all, "url: must not have a #fragment"},
		{"https://127.0.0.1/hooks", all, "url: 127.0.0.1 is a private or loopback address"},
		{"https://10.1.2.3/hooks", all, "url: 10.1.2.3 is a private or loopback address"},
		{"https://[::1]/hooks", all, "url: ::1 is a private or loopback address"},
		{"https://169.254.169.254/latest", all, "url: 169.254.169.254 is a private"},
		{"https://localhost/hooks", all, "url: localhost resolves to"},
		{"https://93.184.216.34/hooks", nil, "events: choose at least one"},
		{"https://93.184.216.34/hooks", []string{"room.exploded"}, `events: "room.exploded" is not an event`},
	} {
		_, _, err := w.CreateWebhook(rb.ctx, owner, "alpha", c.url, c.events)
		if ErrorCodeOf(err) != ErrInvalid || !strings.Contains(ErrorMessageOf(err), c.want) {
			t.Errorf("%q %v: %v, want %q", c.url, c.events, err, c.want)
		}
	}
	acc := NewAccounts(rb.pool)
	if err := acc.AddMemberAsOperator(rb.ctx, "alpha", "member@example.test", MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	m, err := acc.UserByEmail(rb.ctx, "member@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.CreateWebhook(rb.ctx, m.ID, "alpha", "https://93.184.216.34/hooks", all); ErrorCodeOf(err) != ErrUnauthorized {
		t.Errorf("a member adds a webhook: %v", err)
	}
	if _, _, err := w.CreateWebhook(rb.ctx, rb.b.OwnerUserID, "alpha", "https://93.184.216.34/hooks", all); ErrorCodeOf(err) != ErrNotFound {
		t.Errorf("another account's owner adds a webhook: %v", err)
	}
	if es, err := w.ListWebhooks(rb.ctx, owner, "alpha"); err != nil || len(es) != 0 {
		t.Errorf("stored after refusals: %v %v", es, err)
	}
	if _, _, err := w.CreateWebhook(rb.ctx, owner, "alpha", "https://93.184.216.34/hooks", all); err != nil {
		t.Errorf("a public https URL: %v", err)
	}
}

// TestWebhookURLWithAnImpossiblePort: a port outside 1–65535 is not
// a URL anything can be posted to; it should be refused naming url, and
// nothing stored (docs/webhooks.md "What Taasky will call"; STYLE: every
// bad input one clear error naming the field and rule, changes nothing).
func TestWebhookURLWithAnImpossiblePort(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	w := NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, CheckHost: netguard.CheckHost})
	owner := rb.a.OwnerUserID
	for _, u := range []string{"https://93.184.216.34:99999/hooks", "https://93.184.216.34:0/hooks"} {
		_, _, err := w.CreateWebhook(rb.ctx, owner, "alpha", u, eventStrings(WebhookEvents))
		if ErrorCodeOf(err) != ErrInvalid || !strings.HasPrefix(ErrorMessageOf(err), "url:") {
			t.Errorf("%s: %v, want a refusal naming url", u, err)
		}
	}
	if es, err := w.ListWebhooks(rb.ctx, owner, "alpha"); err != nil || len(es) != 0 {
		t.Errorf("stored after refusals: %d endpoints %v", len(es), err)
	}
}

// TestHookEventsOfOneChangeInOrder holds docs/webhooks.md's order of the
// events of one change (they share its seq): for every change the
// protocol makes, the events each side's account is told come in this
// order. (A person answering in the browser, side b without an account,
// is told nothing: their request and answer within one change are not.)
func TestHookEventsOfOneChangeInOrder(t *testing.T) {
	order := []WebhookEvent{HookRoomOpened, HookRoomJoined, HookConfAnswered, HookRoomMoved, HookConfRequested,
		HookRoomAgreed, HookRoomClosed}
	a, b := negotiation.SideA, negotiation.SideB
	open := negotiation.Event{Kind: negotiation.EventOpen, Side: a}
	join := negotiation.Event{Kind: negotiation.EventJoin, Side: b}
	propose := func(s negotiation.Side) negotiation.Event {
		return negotiation.Event{Kind: negotiation.EventPropose, Side: s}
	}
	request := func(s negotiation.Side) negotiation.Event {
		return negotiation.Event{Kind: negotiation.EventRequest, Side: s}
	}
	decide := func(s negotiation.Side, r negotiation.Result) negotiation.Event {
		return negotiation.Event{Kind: negotiation.EventDecide, Side: s, Outcome: r}
	}
	closing := negotiation.Event{Kind: negotiation.EventClose}
	draft, awaiting, agreed, closed := negotiation.StateDraft, negotiation.StateAwaiting, negotiation.StateAgreed, negotiation.StateClosed
	for _, c := range []struct {
		name          string
		before, after negotiation.State
		events        []negotiation.Event
		want          int  // messages in all
		person        bool // side b is a person in the browser: no account
	}{
		{"open", draft, draft, []negotiation.Event{open}, 1, false},
		{"open with terms", draft, draft, []negotiation.Event{open, propose(a)}, 3, false},
		{"open with terms, preapproved", draft, draft, []negotiation.Event{open, propose(a), request(a)}, 4, false},
		{"join", draft, awaiting, []negotiation.Event{join}, 2, false},
		{"join that agrees", draft, agreed, []negotiation.Event{join}, 4, false},
		{"counter", awaiting, awaiting, []negotiation.Event{propose(b)}, 2, false},
		{"request", awaiting, awaiting, []negotiation.Event{request(a)}, 1, false},
		{"approval applied", awaiting, awaiting, []negotiation.Event{decide(a, negotiation.ResultApplied)}, 3, false},
		{"approval that agrees", awaiting, agreed, []negotiation.Event{decide(a, negotiation.ResultApplied)}, 3, false},
		{"rejection", awaiting, closed, []negotiation.Event{decide(a, negotiation.ResultApplied)}, 3, false},
		{"declined", awaiting, awaiting, []negotiation.Event{decide(a, negotiation.ResultDeclined)}, 1, false},
		{"void", awaiting, awaiting, []negotiation.Event{decide(a, negotiation.ResultVoid)}, 1, false},
		{"a person joins and counters", draft, awaiting, []negotiation.Event{join, propose(b)}, 4, true},
		{"a person joins and approves", draft, agreed, []negotiation.Event{join, request(b), decide(b, negotiation.ResultApplied)}, 6, true},
		{"a person joins and rejects", draft, closed, []negotiation.Event{join, request(b), decide(b, negotiation.ResultApplied)}, 6, true},
		{"a seated person approves", awaiting, agreed, []negotiation.Event{request(b), decide(b, negotiation.ResultApplied)}, 4, true},
		{"expiry", awaiting, closed, []negotiation.Event{closing}, 2, false},
	} {
		got := hookEvents(&negotiation.Room{State: c.before}, &negotiation.Room{State: c.after}, c.events)
		if len(got) != c.want {
			t.Errorf("%s: %v, want %d messages", c.name, got, c.want)
		}
		for _, side := range []negotiation.Side{a, b} {
			if side == b && c.person {
				continue
			}
			last := -1
			for _, se := range got {
				if se.side != side {
					continue
				}
				i := slices.Index(order, se.event)
				if i <= last {
					t.Errorf("%s: side %s told %v, not in the documented order %v", c.name, side, got, order)
				}
				last = i
			}
		}
	}
}

// TestWebhookRotationTwiceKeepsEachSecretItsDay: a second rotation within
// the day does not cut off the first one's secret: each replaced secret
// signs for 24 hours from the rotation that replaced it, and Settings says
// until when the previous and the oldest sign.
func TestWebhookRotationTwiceKeepsEachSecretItsDay(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	owner := nb.a.OwnerUserID
	rcv, e, original := nb.hookEndpoint(t, owner, "alpha")
	if _, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	first := rcv.Wait(t, 1, 10*time.Second)[0]
	nb.settleHooks(t)
	firstAt := nb.rooms.now()
	second, err := nb.hooks.RotateWebhookSecret(nb.ctx, owner, "alpha", e.ID)
	if err != nil {
		t.Fatal(err)
	}
	nb.advance(time.Hour)
	secondAt := nb.rooms.now()
	third, err := nb.hooks.RotateWebhookSecret(nb.ctx, owner, "alpha", e.ID)
	if err != nil {
		t.Fatal(err)
	}
	es, err := nb.hooks.ListWebhooks(nb.ctx, owner, "alpha")
	if err != nil || len(es) != 1 || es[0].PreviousUntil == nil || es[0].OldestUntil == nil ||
		!es[0].PreviousUntil.Equal(secondAt.Add(24*time.Hour)) || !es[0].OldestUntil.Equal(firstAt.Add(24*time.Hour)) {
		t.Fatalf("after two rotations: %+v %v", es, err)
	}
	rcv.SetSecrets(original, second, third)
	again := func(n int) notifytest.Webhook {
		t.Helper()
		if _, err := nb.hooks.SendWebhookAgain(nb.ctx, owner, "alpha", first.ID); err != nil {
			t.Fatal(err)
		}
		m := rcv.Wait(t, n, 10*time.Second)[n-1]
		nb.settleHooks(t)
		return m
	}
	// An hour after the first rotation: all three secrets sign.
	if m := again(2); !slices.Equal(m.Verified, []int{0, 1, 2}) || strings.Count(m.Signature, "v1,") != 3 {
		t.Errorf("an hour after the first rotation: %q verified by %v, want the original, second and third secrets", m.Signature, m.Verified)
	}
	// A day after the first rotation, before a day after the second: the
	// original is done, the second still signs.
	nb.advance(23*time.Hour + time.Minute)
	if m := again(3); !slices.Equal(m.Verified, []int{1, 2}) {
		t.Errorf("a day after the first rotation: %q verified by %v, want the second and third secrets", m.Signature, m.Verified)
	}
	if es, _ := nb.hooks.ListWebhooks(nb.ctx, owner, "alpha"); len(es) != 1 || es[0].PreviousUntil == nil || es[0].OldestUntil != nil {
		t.Errorf("one earlier secret left: %+v", es)
	}
	nb.advance(time.Hour)
	if m := again(4); !slices.Equal(m.Verified, []int{2}) {
		t.Errorf("a day after the second rotation: %q verified by %v, want the third secret only", m.Signature, m.Verified)
	}
	if es, _ := nb.hooks.ListWebhooks(nb.ctx, owner, "alpha"); len(es) != 1 || es[0].PreviousUntil != nil {
		t.Errorf("no earlier secret left: %+v", es)
	}
}

// TestHookSecretsRotated: replaced secrets past their day are dropped at
// the next rotation, at most hookPreviousMax are kept (the newest), and
// secrets sealed before Earlier existed (one previous secret) still sign.
func TestHookSecretsRotated(t *testing.T) {
	t0 := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	s := hookSecrets{Current: "s0"}
	for i := 1; i <= hookPreviousMax+3; i++ {
		s = s.rotated("s"+strconv.Itoa(i), t0.Add(time.Duration(i)*time.Minute))
	}
	now := t0.Add(time.Duration(hookPreviousMax+3) * time.Minute)
	got := s.signing(now)
	if len(got) != hookPreviousMax+1 || got[0] != s.Current || got[1] != "s"+strconv.Itoa(hookPreviousMax+2) || got[len(got)-1] != "s3" {
		t.Errorf("after %d rotations within minutes: signing %v", hookPreviousMax+3, got)
	}
	if s.Previous != got[1] || !s.PreviousUntil.Equal(now.Add(hookPreviousFor)) {
		t.Errorf("the newest replaced secret, for a binary of before Earlier: %q until %s", s.Previous, s.PreviousUntil)
	}
	later := s.rotated("late", now.Add(hookPreviousFor+time.Hour))
	if len(later.Earlier) != 1 || later.Earlier[0].Secret != s.Current {
		t.Errorf("a rotation after every earlier secret's day: %+v", later.Earlier)
	}
	var legacy hookSecrets
	if err := json.Unmarshal([]byte(`{"current":"new","previous":"old","previous_until":"2026-05-05T10:00:00Z"}`), &legacy); err != nil {
		t.Fatal(err)
	}
	if got := legacy.signing(t0); !slices.Equal(got, []string{"new", "old"}) {
		t.Errorf("secrets sealed before Earlier: signing %v", got)
	}
	if got := legacy.rotated("newer", t0).signing(t0); !slices.Equal(got, []string{"newer", "new", "old"}) {
		t.Errorf("rotating secrets sealed before Earlier: signing %v", got)
	}
}

// TestWebhookRotationAgainAndDisable: after a rotation both secrets sign
// (a receiver holding either verifies); "Send again" sends the same
// webhook-id and bytes; an endpoint failing for three days is disabled,
// its owners mailed, and nothing more is sent to it until turned on.
func TestWebhookRotationAgainAndDisable(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	owner := nb.a.OwnerUserID
	rcv, e, oldSecret := nb.hookEndpoint(t, owner, "alpha")
	if _, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	first := rcv.Wait(t, 1, 10*time.Second)[0]
	nb.settleHooks(t)

	// Rotation: the new secret and the old one both verify, for a day.
	newSecret, err := nb.hooks.RotateWebhookSecret(nb.ctx, owner, "alpha", e.ID)
	if err != nil {
		t.Fatal(err)
	}
	es, err := nb.hooks.ListWebhooks(nb.ctx, owner, "alpha")
	if err != nil || len(es) != 1 || es[0].PreviousUntil == nil {
		t.Fatalf("after the rotation: %+v %v", es, err)
	}
	rcv.SetSecrets(newSecret, oldSecret)
	if _, err := nb.hooks.SendWebhookAgain(nb.ctx, owner, "alpha", first.ID); err != nil {
		t.Fatal(err)
	}
	again := rcv.Wait(t, 2, 10*time.Second)[1]
	if again.ID != first.ID || !bytes.Equal(again.Body, first.Body) || !slices.Equal(again.Verified, []int{0, 1}) {
		t.Errorf("sent again: %s verified by %v, want %s with the same body, verified by the new secret and the old", again.ID, again.Verified, first.ID)
	}
	if n := strings.Count(again.Signature, "v1,"); n != 2 {
		t.Errorf("during the rotation %d signatures, want 2: %s", n, again.Signature)
	}
	nb.advance(25 * time.Hour)
	if _, err := nb.hooks.SendWebhookAgain(nb.ctx, owner, "alpha", first.ID); err != nil {
		t.Fatal(err)
	}
	if late := rcv.Wait(t, 3, 10*time.Second)[2]; strings.Count(late.Signature, "v1,") != 1 || !slices.Equal(late.Verified, []int{0}) {
		t.Errorf("a day after the rotation: %q verified %v, want the new secret's signature only", late.Signature, late.Verified)
	}
	nb.settleHooks(t)

	// Three days of failures disable it and mail the owner, in their language.
	if err := nb.acc.SetUserLanguage(nb.ctx, owner, "de"); err != nil {
		t.Fatal(err)
	}
	rcv.Failing(true)
	if _, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	rcv.Wait(t, 4, 10*time.Second) // the first failure starts the run
	nb.settleHooks(t)
	nb.advance(HookFailingFor + time.Minute)
	if _, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	mail := nb.mailTo(t, "alpha@example.test", 1)
	if !strings.Contains(mail.Subject, "Ein Webhook von ALPHA wurde abgeschaltet") || !strings.Contains(mail.Text, rcv.URL) {
		t.Errorf("mail: %q\n%s", mail.Subject, mail.Text)
	}
	// Its Message-ID is made as every notice's (the installation's id and
	// the job's), at the service's host.
	if id := mail.Header.Get("Message-ID"); !regexp.MustCompile(`^<taasky\.email\.[a-z2-7]{26}\.webhook_disabled@127\.0\.0\.1>$`).MatchString(id) {
		t.Errorf("the notice's Message-ID %q", id)
	}
	// A line of the owner's delivery log, as every mail (a retry knows it
	// was sent).
	logged := func() bool {
		return slices.ContainsFunc(nb.log(t, "alpha@example.test"), func(d Delivery) bool {
			return d.Topic == jobs.TopicWebhookDisabled && d.Status == jobs.StatusSent && d.Recipient == "alpha@example.test"
		})
	}
	for end := time.Now().Add(10 * time.Second); !logged() && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if !logged() {
		t.Errorf("no sent webhook_disabled line in the owner's log: %+v", nb.log(t, "alpha@example.test"))
	}
	es, err = nb.hooks.ListWebhooks(nb.ctx, owner, "alpha")
	if err != nil || es[0].DisabledAt == nil || !strings.Contains(es[0].DisabledWhy, "503") {
		t.Fatalf("not disabled: %+v %v", es, err)
	}
	nb.settleHooks(t)
	before := len(rcv.Received())
	if _, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	if _, err := nb.hooks.SendWebhookAgain(nb.ctx, owner, "alpha", first.ID); ErrorCodeOf(err) != ErrConflict {
		t.Errorf("send again to a disabled endpoint: %v", err)
	}
	nb.settleHooks(t)
	if after := len(rcv.Received()); after != before {
		t.Errorf("a disabled endpoint received %d more", after-before)
	}
	// Each message sent again is in the audit log, by whom, naming the
	// endpoint and the message; the refused one is not.
	entries, _, err := nb.acc.AuditLog(nb.ctx, owner, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	var resent int
	for _, en := range entries {
		if en.Action == AuditWebhookResent {
			resent++
			if en.ActorID != owner || en.Detail["url"] != e.URL || en.Detail["message"] != first.ID {
				t.Errorf("a message sent again is logged as %+v", en)
			}
		}
	}
	if resent != 2 {
		t.Errorf("%d messages sent again in the audit log, want 2", resent)
	}
	rcv.Failing(false)
	if err := nb.hooks.EnableWebhook(nb.ctx, owner, "alpha", e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	if got := rcv.Wait(t, before+1, 10*time.Second); got[len(got)-1].Answered != 204 {
		t.Errorf("after turning it on: %+v", got[len(got)-1])
	}
	if err := nb.hooks.DeleteWebhook(nb.ctx, owner, "alpha", e.ID); err != nil {
		t.Fatal(err)
	}
	if es, err := nb.hooks.ListWebhooks(nb.ctx, owner, "alpha"); err != nil || len(es) != 0 {
		t.Errorf("after delete: %+v %v", es, err)
	}
}

// TestWebhookEventsOfAClose: a withdrawal closes the room: both sides are
// told room.closed, only the withdrawing side of its confirmation; an
// endpoint gets only the events it asked for.
func TestWebhookEventsOfAClose(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	ra, ea, _ := nb.hookEndpoint(t, nb.a.OwnerUserID, "alpha")
	rcvB := notifytest.NewWebhookEndpoint(t)
	eb, secret, err := nb.hooks.CreateWebhook(nb.ctx, nb.b.OwnerUserID, "beta", rcvB.URL, []string{"room.closed", "confirmation.answered"})
	if err != nil {
		t.Fatal(err)
	}
	rcvB.SetSecrets(secret)
	ta, _ := nb.openJoined(t, OpenInput{}, "")
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, "cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	nb.confirm(t, nb.a, ta, cv)
	nb.settleHooks(t)
	events := func(owner int64, slug string, id int64) []WebhookEvent {
		var out []WebhookEvent
		for _, ev := range nb.messagesOf(t, owner, slug, id) {
			out = append(out, ev)
		}
		slices.Sort(out)
		return out
	}
	if got, want := events(nb.a.OwnerUserID, "alpha", ea.ID), []WebhookEvent{HookConfAnswered, HookConfRequested,
		HookRoomClosed, HookRoomJoined, HookRoomOpened}; !slices.Equal(got, want) {
		t.Errorf("alpha: %v, want %v", got, want)
	}
	if got, want := events(nb.b.OwnerUserID, "beta", eb.ID), []WebhookEvent{HookRoomClosed}; !slices.Equal(got, want) {
		t.Errorf("beta: %v, want %v", got, want)
	}
	if n := len(ra.Received()) + len(rcvB.Received()); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
}

// TestDeletedAccountsEndpointsAreNotSentTheClose: deleting an account
// closes its open rooms; the other side is told (room.closed, "the other
// account was deleted"), but "nobody of the account is sent anything more"
// (docs/operations.md "Deleting an account", step 1 and 2;
// docs/webhooks.md's room.closed row): its endpoints, disabled in step 1,
// are queued nothing for the close.
func TestDeletedAccountsEndpointsAreNotSentTheClose(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	w := NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, CheckHost: netguard.CheckHost})
	all := eventStrings(WebhookEvents)
	if _, _, err := w.CreateWebhook(rb.ctx, rb.b.OwnerUserID, "beta", "https://93.184.216.34/hooks-beta", all); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.CreateWebhook(rb.ctx, rb.a.OwnerUserID, "alpha", "https://93.184.216.34/hooks-alpha", all); err != nil {
		t.Fatal(err)
	}
	rb.openJoined(t, OpenInput{}, "")
	var before int64
	if err := rb.pool.QueryRow(rb.ctx, `SELECT coalesce(max(id), 0) FROM river_job`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.DeleteAccountAsOperator(rb.ctx, "beta", "beta"); err != nil {
		t.Fatal(err)
	}
	count := func(acct int64) int {
		var n int
		if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM river_job WHERE kind = 'webhook' AND id > $1
			AND (args->>'account_id')::bigint = $2`, before, acct).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(rb.a.AccountID); n != 1 {
		t.Errorf("the other side (alpha) got %d webhook jobs for the close, want 1 (room.closed)", n)
	}
	if n := count(rb.b.AccountID); n != 0 {
		t.Errorf("the deleted account (beta) was queued %d webhook jobs after its deletion began, want 0", n)
	}
}

// TestWebhookEndpointsCapConcurrent: an account has at most 10 webhook
// endpoints, also when its admins add them at once: the count and the
// insert were two statements with nothing between them held, so
// concurrent additions each saw room for one more.
func TestWebhookEndpointsCapConcurrent(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	w := NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, CheckHost: netguard.CheckHost})
	owner := rb.a.OwnerUserID
	all := eventStrings(WebhookEvents)
	for i := range 8 {
		if _, _, err := w.CreateWebhook(rb.ctx, owner, "alpha", "https://93.184.216.34/hooks/"+strconv.Itoa(i), all); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var refused atomic.Int32
	for i := range 16 {
		wg.Go(func() {
			_, _, err := w.CreateWebhook(rb.ctx, owner, "alpha", "https://93.184.216.34/more/"+strconv.Itoa(i), all)
			switch {
			case err == nil:
			case ErrorCodeOf(err) == ErrConflict && ErrorMessageOf(err) == "url: an account has at most 10 webhook endpoints":
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	es, err := w.ListWebhooks(rb.ctx, owner, "alpha")
	if err != nil || len(es) != 10 || refused.Load() != 14 {
		t.Fatalf("%d endpoints, %d refused (%v); want 10, 14", len(es), refused.Load(), err)
	}
}

// TestWebhookPayloadSealedToItsMessage: a kept payload opens only as the
// message it was written for (a sealed body copied to another message of
// the account is not sent), it is kept apart from the column older builds
// send (payload), and one kept in the clear by a build before payloads
// were sealed is still sent as it was, for "Send again".
func TestWebhookPayloadSealedToItsMessage(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	rcv, _, _ := nb.hookEndpoint(t, nb.a.OwnerUserID, "alpha")
	nb.offerWithLimits(t, "Sealed")
	nb.settleHooks(t)
	got := rcv.Received()
	if len(got) < 2 {
		t.Fatalf("%d webhooks received, want 2 or more", len(got))
	}
	first, second := got[0], got[1]
	if first.ID == second.ID {
		t.Fatalf("the same message twice: %s", first.ID)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := nb.pool.Exec(nb.ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	acct := nb.a.AccountID
	// The payload column stays empty: a worker of a build before sends it
	// as it finds it (ciphertext, were the sealed body there), and renders
	// the body afresh when it is empty.
	var inPayload int
	if err := nb.pool.QueryRow(nb.ctx, `SELECT count(*) FROM webhook_messages WHERE account_id = $1 AND payload IS NOT NULL`, acct).Scan(&inPayload); err != nil || inPayload != 0 {
		t.Fatalf("%d messages keep their body in payload (%v), want 0", inPayload, err)
	}
	exec(`UPDATE webhook_messages SET payload_sealed = (SELECT payload_sealed FROM webhook_messages WHERE account_id = $1 AND id = $2)
		WHERE account_id = $1 AND id = $3`, acct, first.ID, second.ID)
	if m, err := nb.hooks.Webhook(nb.ctx, acct, second.ID); err == nil {
		t.Errorf("%s sent with %s's sealed body: %s", second.ID, first.ID, m.Payload)
	}
	exec(`UPDATE webhook_messages SET payload = $3, payload_sealed = NULL WHERE account_id = $1 AND id = $2`, acct, second.ID, second.Body)
	m, err := nb.hooks.Webhook(nb.ctx, acct, second.ID)
	if err != nil || !bytes.Equal(m.Payload, second.Body) {
		t.Errorf("a payload kept in the clear: %v, sent %s, want %s", err, m.Payload, second.Body)
	}
}
