package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// lockLoad is a mixed concurrent load on one database: agents moving and
// asking their humans in shared rooms from both sides, humans answering on
// the dashboard and by one-tap links, people answering invitations and
// erasing themselves, the sweep closing rooms at their deadline, members
// removed and re-added and their roles changed, members leaving in the
// middle of a negotiation and the owner cancelling for their seat,
// accounts deleted while their rooms move, webhook endpoints changed,
// persons unsubscribing from a room's mail, reminders, push subscriptions.
// It records every error that would reach a caller as an internal error,
// or as a deadlock or a serialization failure, and how each call went.
type lockLoad struct {
	rb     *roomsBundle
	hooks  *Webhooks
	notify *Notifications
	stop   atomic.Bool
	// clock is held (read) by each call, and (write) to move the test's
	// clock, which every call reads again and again: so that a call sees
	// one moment, as it does in production (the database's).
	clock sync.RWMutex

	mu    sync.Mutex
	rooms []*loadRoom
	bad   []string
	calls atomic.Int64
	done  map[string]*loadCount // per call
	// owners answer for the seats of the accounts' members who left
	// (CancelForSeat): the account's owner, by its ID.
	owners map[int64]int64
}

// loadCount is how one call went: how many tries went through, how many
// were refused, by error code, and its first refusal's message.
type loadCount struct {
	ok      int
	refused map[ErrorCode]int
	first   string
}

func (c *loadCount) String() string {
	if len(c.refused) == 0 {
		return fmt.Sprintf("%d through", c.ok)
	}
	codes := slices.Sorted(maps.Keys(c.refused))
	var parts []string
	for _, code := range codes {
		parts = append(parts, fmt.Sprintf("%d %s", c.refused[code], code))
	}
	return fmt.Sprintf("%d through, refused %s (first: %s)", c.ok, strings.Join(parts, ", "), c.first)
}

type loadRoom struct {
	id     int64
	tokens map[negotiation.Side]string
	agents map[negotiation.Side]Agent
	mu     sync.Mutex
	asked  map[negotiation.Side]*ConfirmationView
}

// trouble is what err would show its caller, if not a refusal.
func lockTrouble(err error) string {
	if err == nil {
		return ""
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && (pe.Code == "40P01" || pe.Code == "40001") {
		return "SQLSTATE " + pe.Code
	}
	if ErrorCodeOf(err) == ErrInternal && !Unavailable(err) {
		return "internal"
	}
	return ""
}

func (l *lockLoad) note(what string, err error) {
	l.calls.Add(1)
	l.mu.Lock()
	if l.done == nil {
		l.done = map[string]*loadCount{}
	}
	c := l.done[what]
	if c == nil {
		c = &loadCount{refused: map[ErrorCode]int{}}
		l.done[what] = c
	}
	if err == nil {
		c.ok++
	} else {
		c.refused[ErrorCodeOf(err)]++
		if c.first == "" {
			c.first = err.Error()
		}
	}
	l.mu.Unlock()
	if k := lockTrouble(err); k != "" {
		l.mu.Lock()
		if len(l.bad) < 50 {
			l.bad = append(l.bad, fmt.Sprintf("%s: %s: %v", what, k, err))
		}
		l.mu.Unlock()
	}
}

// pause sleeps d without holding the clock.
func (l *lockLoad) pause(d time.Duration) {
	l.clock.RUnlock()
	time.Sleep(d)
	l.clock.RLock()
}

// drop takes a room that ended out of the rooms acted in.
func (l *lockLoad) drop(room *loadRoom) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rooms = slices.DeleteFunc(l.rooms, func(r *loadRoom) bool { return r == room })
}

func (l *lockLoad) full() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.rooms) >= 8
}

func (l *lockLoad) pick(r *rand.Rand) *loadRoom {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.rooms) == 0 {
		return nil
	}
	return l.rooms[r.IntN(len(l.rooms))]
}

func (l *lockLoad) add(room *loadRoom) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rooms = append(l.rooms, room)
	if len(l.rooms) > 8 {
		l.rooms = l.rooms[1:]
	}
}

// open opens a room by a and joins it by b, both given.
func (l *lockLoad) open(a, b Agent, hours int) *loadRoom {
	ctx := context.Background()
	deadline := time.Unix(0, l.rb.clock.Load()).Add(time.Duration(hours) * time.Hour)
	o, err := l.rb.rooms.Open(ctx, a, OpenInput{Schema: meetingSchema, Deadline: &deadline})
	l.note("open", err)
	if err != nil {
		return nil
	}
	j, err := l.rb.rooms.Join(ctx, b, JoinInput{InviteCode: o.InviteCode, Schema: meetingSchema})
	l.note("join", err)
	if err != nil {
		return nil
	}
	return &loadRoom{id: o.View.RoomID, tokens: map[negotiation.Side]string{negotiation.SideA: o.RoomToken, negotiation.SideB: j.RoomToken},
		agents: map[negotiation.Side]Agent{negotiation.SideA: a, negotiation.SideB: b}, asked: map[negotiation.Side]*ConfirmationView{}}
}

// act does one thing in room, as its side's agent or human would next.
func (l *lockLoad) act(r *rand.Rand, room *loadRoom) {
	ctx := context.Background()
	rooms := l.rb.rooms
	side := negotiation.SideA
	if r.IntN(2) == 1 {
		side = negotiation.SideB
	}
	agent, token := room.agents[side], room.tokens[side]
	room.mu.Lock()
	cv := room.asked[side]
	room.mu.Unlock()
	if cv != nil && r.IntN(3) != 0 {
		var err error
		switch r.IntN(3) {
		case 0:
			_, err = rooms.DecideAsOwner(ctx, agent.OwnerUserID, room.id, cv.ID, cv.SubjectHash, r.IntN(5) != 0)
			l.note("dashboard decision", err)
		default:
			var tok string
			if r.IntN(2) == 0 {
				tok, err = rooms.IssueOneTap(ctx, l.rb.pool, room.id, cv.ID, "email")
				l.note("issue one-tap", err)
			} else {
				// As a request's mail is composed: the link stored with
				// the notice's read, for the seat's human.
				var n *jobs.Notification
				n, err = l.notify.Notification(ctx, jobs.Delivery{Channel: jobs.ChannelEmail, Notice: jobs.Notice{Topic: jobs.TopicRequest,
					RoomID: room.id, Side: side, UserID: agent.OwnerUserID, ConfirmationID: cv.ID}})
				if _, skipped := errors.AsType[*jobs.SkipError](err); skipped {
					err = nil
				}
				l.note("request mail", err)
				if n != nil {
					if m := oneTapLink.FindStringSubmatch(n.OneTapURL); m != nil {
						tok = m[1]
					}
				}
			}
			if err != nil || tok == "" {
				return
			}
			_, err = rooms.DecideOneTap(ctx, tok, cv.SubjectHash, r.IntN(5) != 0)
			l.note("one-tap decision", err)
		}
		if ErrorCodeOf(err) != ErrInternal {
			room.mu.Lock()
			room.asked[side] = nil
			room.mu.Unlock()
		}
		return
	}
	switch k := r.IntN(20); {
	case k == 0:
		// As the account's owner, who answers for the seat once its
		// member left (the leavers' rooms), and is refused for others.
		l.mu.Lock()
		owner := l.owners[agent.AccountID]
		l.mu.Unlock()
		_, err := rooms.CancelForSeat(ctx, owner, room.id, side)
		l.note("cancel for seat", err)
		return
	case k == 1:
		_, err := rooms.ForHuman(ctx, agent.OwnerUserID, room.id, side, "")
		l.note("dashboard room", err)
		return
	case k == 2:
		cv, _, err := rooms.RequestConfirmation(ctx, agent, token, negotiation.VerdictCancel, "")
		l.note("ask to cancel", err)
		if err == nil {
			room.mu.Lock()
			room.asked[side] = cv
			room.mu.Unlock()
		}
		return
	}
	v, err := rooms.Read(ctx, agent, token)
	l.note("read", err)
	if (err != nil && ErrorCodeOf(err) != ErrInternal) || (err == nil && (v.State == negotiation.StateClosed || v.State == negotiation.StateAgreed)) {
		l.drop(room)
		return
	}
	if err != nil || v.Turn == nil || *v.Turn != "you" {
		return
	}
	if v.TermsOnTable != nil && len(v.TermsOnTable.Options) > 0 && r.IntN(3) != 0 {
		verdict := negotiation.VerdictApprove
		if r.IntN(6) == 0 {
			verdict = negotiation.VerdictReject
		}
		cv, _, err := rooms.RequestConfirmation(ctx, agent, token, verdict, v.TermsOnTable.Options[0].SubjectHash)
		l.note("request confirmation", err)
		if err == nil {
			room.mu.Lock()
			room.asked[side] = cv
			room.mu.Unlock()
		}
		return
	}
	verdict := negotiation.VerdictOffer
	if v.TermsOnTable != nil {
		verdict = negotiation.VerdictCounter
	}
	_, err = rooms.Propose(ctx, agent, token, MoveInput{Verdict: verdict, Subject: meeting(9+r.IntN(8), "")})
	l.note(string(verdict), err)
}

// TestMixedLoadMeetsNoDeadlock runs the load for a few seconds
// (TAASKY_LOCK_LOAD_SECONDS=15 for longer: it found the deadlocks of the
// retention's walk with an erasure, and a move failing on a webhook
// endpoint deleted meanwhile, in each 15-second run), checks that each of
// its calls went through at least once (else the load stopped covering
// that path), and then checks every room against the replay of its log,
// and its confirmations.
func TestMixedLoadMeetsNoDeadlock(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	if err := rb.acc.UseTeams(TeamsConfig{River: rb.rooms.river, SealKey: bytes.Repeat([]byte{4}, 32), BaseURL: "https://taasky.example",
		SignupDailyCap: 1000, InviteDailyCap: 1000, Now: rb.cfg.Now, RoomTokenKey: bytes.Repeat([]byte{9}, 32)}); err != nil {
		t.Fatal(err)
	}
	notify, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: rb.rooms.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	l := &lockLoad{rb: rb, notify: notify, hooks: NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, BaseURL: rb.rooms.baseURL}),
		owners: map[int64]int64{rb.a.AccountID: rb.a.OwnerUserID, rb.b.AccountID: rb.b.OwnerUserID}}
	// Each account has a member (who owns an agent too) the churn removes
	// and adds again, and whose role it changes.
	agents := map[string][]Agent{"alpha": {rb.a}, "beta": {rb.b}}
	var agentsMu sync.Mutex
	for _, slug := range []string{"alpha", "beta"} {
		email := "m@" + slug + ".test"
		if err := rb.acc.AddMemberAsOperator(ctx, slug, email, MemberRoleMember); err != nil {
			t.Fatal(err)
		}
		ag, _, err := rb.acc.CreateAgent(ctx, slug, "member's agent", email)
		if err != nil {
			t.Fatal(err)
		}
		agents[slug] = append(agents[slug], ag)
	}
	agentOf := func(r *rand.Rand, slug string) Agent {
		agentsMu.Lock()
		defer agentsMu.Unlock()
		as := agents[slug]
		return as[r.IntN(len(as))]
	}
	for range 4 {
		if room := l.open(rb.a, rb.b, 48); room != nil {
			l.add(room)
		}
	}
	seconds := 3
	if s, err := strconv.Atoi(os.Getenv("TAASKY_LOCK_LOAD_SECONDS")); err == nil && s > 0 {
		seconds = s
	}
	var wg sync.WaitGroup
	run := func(name string, seed uint64, body func(r *rand.Rand, i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 23))
			for i := 0; !l.stop.Load() && i < 100000; i++ {
				l.clock.RLock()
				body(r, i)
				l.clock.RUnlock()
			}
		}()
	}
	// Moves and answers.
	for g := range 6 {
		run("mover", uint64(g), func(r *rand.Rand, _ int) {
			if room := l.pick(r); room != nil {
				l.act(r, room)
			}
		})
	}
	// New rooms, between the accounts' agents either way round.
	run("opener", 100, func(r *rand.Rand, _ int) {
		if l.full() {
			l.pause(5 * time.Millisecond)
			return
		}
		a, b := agentOf(r, "alpha"), agentOf(r, "beta")
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		if room := l.open(a, b, 1+r.IntN(3)); room != nil {
			l.add(room)
		}
	})
	// The clock and the sweep: rooms reach their deadline.
	run("sweep", 101, func(r *rand.Rand, i int) {
		if i%10 == 0 {
			l.clock.RUnlock()
			l.clock.Lock()
			rb.advance(5 * time.Minute)
			l.clock.Unlock()
			l.clock.RLock()
		}
		_, err := rb.rooms.CloseDue(ctx, 50)
		l.note("sweep", err)
	})
	// Retention, everything ended counting as old: one-tap links, the
	// person's addresses, webhook messages, delivery logs.
	ret := NewRetention(rb.pool, RetentionPeriods{DeliveryLog: time.Hour, OneTap: time.Hour, Webhooks: time.Hour, OAuthClients: time.Hour})
	run("retention", 106, func(r *rand.Rand, _ int) {
		_, err := ret.PurgeOld(ctx, time.Now().Add(24*time.Hour), time.Now().Add(time.Second))
		l.note("retention", err)
		l.pause(20 * time.Millisecond)
	})
	// Member churn: the member's role, their removal and return.
	run("members", 102, func(r *rand.Rand, i int) {
		slug := []string{"alpha", "beta"}[r.IntN(2)]
		email := "m@" + slug + ".test"
		switch r.IntN(3) {
		case 0:
			l.note("change role", rb.acc.ChangeRoleAsOperator(ctx, slug, email, []MemberRole{MemberRoleAdmin, MemberRoleMember}[r.IntN(2)]))
		case 1:
			l.note("remove member", rb.acc.RemoveMemberAsOperator(ctx, slug, email))
		default:
			err := rb.acc.AddMemberAsOperator(ctx, slug, email, MemberRoleMember)
			l.note("add member", err)
			if err == nil {
				ag, _, err := rb.acc.CreateAgent(ctx, slug, fmt.Sprintf("member's agent %d", i), email)
				l.note("create agent", err)
				if err == nil {
					agentsMu.Lock()
					agents[slug] = append(agents[slug], ag)
					agentsMu.Unlock()
				}
			}
		}
	})
	// Accounts that open rooms with beta, move in them, and are deleted
	// while they do.
	run("deleter", 103, func(r *rand.Rand, i int) {
		slug := fmt.Sprintf("gamma%d", i)
		owner := slug + "@example.test"
		acct, err := rb.acc.CreateAccount(ctx, slug, "Gamma", owner)
		l.note("create account", err)
		if err != nil {
			return
		}
		ag, _, err := rb.acc.CreateAgent(ctx, slug, "agent", owner)
		l.note("create agent", err)
		if err != nil {
			return
		}
		l.mu.Lock()
		l.owners[ag.AccountID] = ag.OwnerUserID
		l.mu.Unlock()
		for range 2 {
			if room := l.open(ag, agentOf(r, "beta"), 24); room != nil {
				l.add(room)
			}
		}
		l.pause(time.Duration(20+r.IntN(40)) * time.Millisecond)
		_, err = rb.rooms.DeleteAccountNow(ctx, ag.OwnerUserID, slug, "gamma"+strconv.Itoa(i))
		if ErrorCodeOf(err) == ErrInvalid { // the typed confirmation is the name or the slug
			_, err = rb.rooms.DeleteAccountNow(ctx, ag.OwnerUserID, slug, acct.Name)
		}
		l.note("delete account", err)
		if err == nil {
			l.mu.Lock()
			delete(l.owners, ag.AccountID)
			l.mu.Unlock()
		}
	})
	// People invited by address who answer, move, and erase themselves.
	run("people", 104, func(r *rand.Rand, i int) {
		email := fmt.Sprintf("pat%d@example.test", i)
		u, err := rb.acc.LoginOIDC(ctx, OIDCIdentity{Issuer: "https://id.example", Subject: "sub-" + email, Email: email, EmailVerified: true})
		l.note("login", err)
		if err != nil {
			return
		}
		o, err := rb.rooms.Open(ctx, agentOf(r, "alpha"), OpenInput{Schema: meetingSchema, Subject: meeting(10, ""), InviteEmail: email})
		l.note("open inviting", err)
		if err != nil {
			return
		}
		// Their browser subscribes to pushes while they erase themselves.
		pushed := make(chan error, 1)
		go func() {
			_, err := l.notify.Subscribe(ctx, u.ID, loadPush(i%3))
			pushed <- err
		}()
		erased, delay := make(chan error, 1), time.Duration(r.IntN(5))*time.Millisecond
		go func() {
			time.Sleep(delay)
			erased <- rb.acc.DeleteProfile(ctx, u.ID, email)
		}()
		// The List-Unsubscribe link of a mail to the room's person: used
		// while they answer, or once the room ended, while the retention
		// forgets the addresses of the rooms that ended.
		unsubscribe := func() error {
			_, err := l.notify.UnsubscribePerson(ctx, strings.TrimPrefix(l.notify.personUnsubscribeURL(o.View.RoomID), l.notify.baseURL+"/unsubscribe/"))
			return err
		}
		early := r.IntN(2) == 0
		unsubscribed := make(chan error, 1)
		if early {
			go func() { unsubscribed <- unsubscribe() }()
		}
		res, err := rb.rooms.AnswerInvitation(ctx, o.InviteCode, PersonAnswer{Verdict: negotiation.VerdictJoin})
		l.note("answer invitation", err)
		if early {
			l.note("person unsubscribes, answering", <-unsubscribed)
		}
		if err == nil && res.SeatToken != "" {
			if pr, err := rb.rooms.PersonRoom(ctx, res.SeatToken, nil); err == nil && pr != nil {
				_, err = rb.rooms.AnswerAsPerson(ctx, res.SeatToken, PersonAnswer{Verdict: negotiation.VerdictReject})
				l.note("person's answer", err)
			}
		}
		if !early {
			l.note("person unsubscribes, room ended", unsubscribe())
		}
		l.note("push subscribe, erasing", <-pushed)
		l.note("erase profile", <-erased)
	})
	// Webhook endpoints changed while events are written.
	run("webhooks", 105, func(r *rand.Rand, i int) {
		slug, owner := "alpha", rb.a.OwnerUserID
		if r.IntN(2) == 0 {
			slug, owner = "beta", rb.b.OwnerUserID
		}
		ep, _, err := l.hooks.CreateWebhook(ctx, owner, slug, fmt.Sprintf("https://hooks.example/%d", i), []string{"room.moved", "room.closed"})
		l.note("create webhook", err)
		if err != nil {
			return
		}
		l.pause(10 * time.Millisecond)
		_, err = l.hooks.RotateWebhookSecret(ctx, owner, slug, ep.ID)
		l.note("rotate webhook secret", err)
		l.note("delete webhook", l.hooks.DeleteWebhook(ctx, owner, slug, ep.ID))
	})
	// Members who leave their account in the middle of a negotiation:
	// their agent's seat is left to the account's owner, who cancels it
	// (CancelForSeat) while the other side moves.
	run("leavers", 107, func(r *rand.Rand, i int) {
		slug, other := "alpha", "beta"
		if r.IntN(2) == 0 {
			slug, other = other, slug
		}
		email := fmt.Sprintf("leaver%d@%s.test", i, slug)
		err := rb.acc.AddMemberAsOperator(ctx, slug, email, MemberRoleMember)
		l.note("add member", err)
		if err != nil {
			return
		}
		ag, _, err := rb.acc.CreateAgent(ctx, slug, fmt.Sprintf("leaver's agent %d", i), email)
		l.note("create agent", err)
		if err != nil {
			return
		}
		side, room := negotiation.SideB, l.open(agentOf(r, other), ag, 24)
		if r.IntN(2) == 0 {
			side, room = negotiation.SideA, l.open(ag, agentOf(r, other), 24)
		}
		if room == nil {
			return
		}
		l.add(room)
		l.pause(time.Duration(r.IntN(20)) * time.Millisecond)
		l.note("remove member", rb.acc.RemoveMemberAsOperator(ctx, slug, email))
		l.pause(time.Duration(r.IntN(10)) * time.Millisecond)
		l.mu.Lock()
		owner := l.owners[ag.AccountID]
		l.mu.Unlock()
		_, err = rb.rooms.CancelForSeat(ctx, owner, room.id, side)
		l.note("cancel for seat", err)
	})
	// The reminders' sweep, as the clock moves past their moments.
	run("reminders", 108, func(r *rand.Rand, _ int) {
		_, err := notify.RemindDue(ctx, 50)
		l.note("reminders", err)
		l.pause(10 * time.Millisecond)
	})
	// Browsers subscribing to pushes and unsubscribing, the same browser
	// moving between users, some of them erased with their account.
	run("push", 109, func(r *rand.Rand, i int) {
		l.mu.Lock()
		users := slices.Collect(maps.Values(l.owners))
		l.mu.Unlock()
		user := users[r.IntN(len(users))]
		sub, err := notify.Subscribe(ctx, user, loadPush(r.IntN(3)))
		l.note("push subscribe", err)
		l.pause(time.Duration(r.IntN(10)) * time.Millisecond)
		if err == nil && r.IntN(2) == 0 {
			l.note("push unsubscribe", notify.Unsubscribe(ctx, user, sub.ID, ""))
		}
	})
	// Every call of the load goes through at least once: one that does
	// not is a path the load stopped covering. The load runs its seconds,
	// and as long again at most while a call has not gone through yet (a
	// slow machine).
	calls := []string{"add member", "answer invitation", "ask to cancel", "cancel for seat", "change role", "counter",
		"create account", "create agent", "create webhook", "dashboard decision", "dashboard room", "delete account",
		"delete webhook", "erase profile", "issue one-tap", "join", "login", "offer", "one-tap decision", "open inviting",
		"open", "person unsubscribes, answering", "person unsubscribes, room ended", "person's answer", "push subscribe",
		"push subscribe, erasing", "push unsubscribe", "read", "reminders", "remove member", "request confirmation",
		"request mail", "retention", "rotate webhook secret", "sweep"}
	missing := func() []string {
		l.mu.Lock()
		defer l.mu.Unlock()
		return slices.DeleteFunc(slices.Clone(calls), func(what string) bool { return l.done[what] != nil && l.done[what].ok > 0 })
	}
	time.Sleep(time.Duration(seconds) * time.Second)
	if m := missing(); len(m) > 0 {
		t.Logf("not gone through after %d s, running on: %v", seconds, m)
	}
	for i := 0; i < 20*seconds && len(missing()) > 0; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	l.stop.Store(true)
	wg.Wait()
	t.Logf("%d calls", l.calls.Load())
	for _, what := range slices.Sorted(maps.Keys(l.done)) {
		t.Logf("%s: %s", what, l.done[what])
		if !slices.Contains(calls, what) {
			t.Errorf("%s is not in the load's calls that must go through", what)
		}
	}
	for _, what := range missing() {
		t.Errorf("%s never went through: %v", what, l.done[what])
	}
	for _, b := range l.bad {
		t.Error(b)
	}
	// Each room's confirmations agree with it: none pending in a room
	// that ended, at most one pending per side.
	var stale, twice int
	if err := rb.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM confirmations c JOIN rooms r ON r.id = c.room_id WHERE c.status = 'pending' AND r.state IN ('agreed', 'closed')),
		(SELECT count(*) FROM (SELECT 1 FROM confirmations WHERE status = 'pending' GROUP BY room_id, side HAVING count(*) > 1) d)`).Scan(&stale, &twice); err != nil {
		t.Fatal(err)
	}
	if stale != 0 || twice != 0 {
		t.Errorf("%d confirmations pending in rooms that ended, %d seats with more than one pending", stale, twice)
	}
	rb.checkClean(t)
}

// loadPush is the push subscription of the load's browser n.
func loadPush(n int) PushSubscriptionInput {
	return PushSubscriptionInput{Endpoint: fmt.Sprintf("https://push.example/load/%d", n),
		P256dh: base64.RawURLEncoding.EncodeToString(append([]byte{4}, bytes.Repeat([]byte{byte(n + 1)}, 64)...)),
		Auth:   base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{byte(n + 1)}, 16)), Device: "load"}
}
