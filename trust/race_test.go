package trust

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// raceSchema is the schema of the race rooms: a fee and a day.
var raceSchema = map[string]any{
	"fee": map[string]any{"type": "money", "label": "Fee", "currency": "EUR"},
	"day": map[string]any{"type": "date", "label": "Day"},
}

func feeTerms(fee int) map[string]any {
	return map[string]any{"fee": map[string]any{"amount": fmt.Sprintf("%d.00", fee), "currency": "EUR"}, "day": "2027-01-15"}
}

// tableHash is the subject_hash of the first terms on the table of a view.
func tableHash(view map[string]any) string {
	t, _ := view["terms_on_table"].(map[string]any)
	opts, _ := t["options"].([]any)
	if len(opts) == 0 {
		return ""
	}
	o, _ := opts[0].(map[string]any)
	h, _ := o["subject_hash"].(string)
	return h
}

// racer is one worker of the race suite: its own MCP sessions (two per
// tenant, so that both moves of a pair travel on their own connections).
type racer struct {
	s     *stack
	rng   *rand.Rand
	sess  map[*tenant][2]*mcp.ClientSession
	fee   int
	stats *raceStats
}

func (rc *racer) conn(tn *tenant, i int) *mcp.ClientSession {
	if _, ok := rc.sess[tn]; !ok {
		rc.sess[tn] = [2]*mcp.ClientSession{tn.connect(tn.key), tn.connect(tn.key)}
	}
	return rc.sess[tn][i]
}

// call is a tool call that must reach the tool (a transport error fails).
func (rc *racer) call(tn *tenant, i int, tool string, args any) result {
	r, err := callOn(rc.s.ctx, rc.conn(tn, i), tool, args)
	if err != nil {
		rc.s.t.Errorf("%s %s: transport: %v", tn.slug, tool, err)
	}
	return r
}

func (rc *racer) must(tn *tenant, tool string, args any) result {
	r := rc.call(tn, 0, tool, args)
	if r.err != "" {
		rc.s.t.Fatalf("%s %s: %s", tn.slug, tool, r.err)
	}
	return r
}

// duo is a room between two tenants, with b to move on a's offer.
type duo struct {
	a, b   *tenant
	ta, tb string
	id     int64
	hash   string // of the terms on the table
}

func (rc *racer) newDuo(a, b *tenant, join, offer bool) *duo {
	d := &duo{a: a, b: b}
	args := map[string]any{"subject_schema": raceSchema}
	if offer {
		rc.fee++
		args["subject"] = feeTerms(rc.fee)
	}
	open := rc.must(a, "negotiation_open", args)
	d.ta = open.str("room_token")
	room, _ := open.out["room"].(map[string]any)
	d.hash = tableHash(room)
	if join {
		j := rc.must(b, "negotiation_join", map[string]any{"invite_code": open.str("invite_code"), "subject_schema": raceSchema})
		d.tb = j.str("room_token")
	} else {
		d.tb = open.str("invite_code") // the invitation, for a join to race
	}
	v, err := rc.s.rooms.Read(rc.s.ctx, a.agent, d.ta)
	if err != nil {
		rc.s.t.Fatal(err)
	}
	d.id = v.RoomID
	return d
}

// ask is negotiation_respond or negotiation_cancel; it returns the
// confirmation's id.
func (rc *racer) ask(tn *tenant, token, verdict, hash string) string {
	args := map[string]any{"room_token": token}
	tool := "negotiation_cancel"
	if verdict != "cancel" {
		tool = "negotiation_respond"
		args["verdict"] = verdict
		if hash != "" {
			args["subject_hash"] = hash
		}
	}
	r := rc.must(tn, tool, args)
	c, _ := r.out["pending_confirmation"].(map[string]any)
	id, _ := c["id"].(string)
	return id
}

// confirm is the human's yes through the dashboard's service call.
func (rc *racer) confirm(tn *tenant, d *duo, cid, hash string) (*app.Decision, error) {
	return tn.decide(d.id, cid, negotiation.SubjectHash(hash), true)
}

// together runs both functions at once, released by one barrier, with a
// random head start of up to 2 ms for either, so both orders happen.
func (rc *racer) together(f, g func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	delays := [2]time.Duration{time.Duration(rc.rng.IntN(2000)) * time.Microsecond, time.Duration(rc.rng.IntN(2000)) * time.Microsecond}
	if rc.rng.IntN(2) == 0 {
		delays[0] = 0
	} else {
		delays[1] = 0
	}
	for i, fn := range []func(){f, g} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			time.Sleep(delays[i])
			fn()
		}()
	}
	close(start)
	wg.Wait()
}

// raceStats counts what each kind of race came to.
type raceStats struct {
	mu       sync.Mutex
	outcomes map[string]map[string]int
	pairs    atomic.Int64
	acked    []ackedMove // every move that got a successful answer
}

type ackedMove struct {
	room int64
	hash string
}

func (st *raceStats) note(kind, outcome string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.outcomes[kind] == nil {
		st.outcomes[kind] = map[string]int{}
	}
	st.outcomes[kind][outcome]++
}

func (st *raceStats) ack(room int64, hash string) {
	st.mu.Lock()
	st.acked = append(st.acked, ackedMove{room, hash})
	st.mu.Unlock()
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return app.ErrorMessageOf(err)
}

// The kinds of race. Each returns a short outcome label and fails the test
// on an outcome the protocol forbids.
var raceKinds = []struct {
	name string
	run  func(rc *racer, a, b *tenant)
}{
	{"double approve (agent)", func(rc *racer, a, b *tenant) {
		d := rc.newDuo(a, b, true, true)
		args := map[string]any{"room_token": d.tb, "verdict": "approve", "subject_hash": d.hash}
		var r1, r2 result
		rc.together(func() { r1 = rc.call(b, 0, "negotiation_respond", args) }, func() { r2 = rc.call(b, 1, "negotiation_respond", args) })
		c1, _ := r1.out["pending_confirmation"].(map[string]any)
		c2, _ := r2.out["pending_confirmation"].(map[string]any)
		if r1.err != "" || r2.err != "" || c1["id"] != c2["id"] {
			rc.s.t.Errorf("room %d: the same approve twice at once: %q %q, confirmations %v %v", d.id, r1.err, r2.err, c1["id"], c2["id"])
		}
		rc.stats.note("double approve (agent)", "one confirmation, answered twice")
	}},
	{"double confirm (human)", func(rc *racer, a, b *tenant) {
		d := rc.newDuo(a, b, true, true)
		cid := rc.ask(b, d.tb, "approve", d.hash)
		tok := rc.s.oneTap(d.id, cid)
		var e1, e2 error
		rc.together(func() { _, e1 = rc.confirm(b, d, cid, d.hash) },
			func() { _, e2 = rc.s.rooms.DecideOneTap(rc.s.ctx, tok, negotiation.SubjectHash(d.hash), true) })
		if (e1 == nil) == (e2 == nil) {
			rc.s.t.Errorf("room %d: dashboard and one-tap confirmed at once: %v / %v; want exactly one applied", d.id, e1, e2)
		}
		rc.stats.note("double confirm (human)", "dashboard "+errText(e1)+" / one-tap "+errText(e2))
	}},
	{"approve against counter", func(rc *racer, a, b *tenant) {
		d := rc.newDuo(a, b, true, true)
		cid := rc.ask(b, d.tb, "approve", d.hash)
		rc.fee++
		counter := feeTerms(rc.fee)
		var dec *app.Decision
		var e error
		var r result
		rc.together(func() { dec, e = rc.confirm(b, d, cid, d.hash) },
			func() {
				r = rc.call(b, 1, "negotiation_propose", map[string]any{"room_token": d.tb, "verdict": "counter", "subject": counter})
			})
		applied := e == nil && dec.Result == negotiation.ResultApplied
		if applied == (r.err == "") {
			rc.s.t.Errorf("room %d: b's human approved (%v, %v) while b's agent countered (%q): want exactly one", d.id, dec, e, r.err)
		}
		if r.err == "" {
			rc.stats.ack(d.id, tableHash(r.out))
		}
		rc.stats.note("approve against counter", "confirm "+errText(e)+" / counter "+orOK(r.err))
	}},
	{"cancel against approve", func(rc *racer, a, b *tenant) {
		// a approved the offer already (b asked for detail, a's human
		// approved); a's human cancels while b's human approves: agreed or
		// cancelled, never both.
		d := rc.newDuo(a, b, true, true)
		rc.must(b, "negotiation_propose", map[string]any{"room_token": d.tb, "verdict": "need_more_detail", "fields": []string{"fee"}})
		ca := rc.ask(a, d.ta, "approve", d.hash)
		if _, err := rc.confirm(a, d, ca, d.hash); err != nil {
			rc.s.t.Fatal(err)
		}
		cancel := rc.ask(a, d.ta, "cancel", "")
		approve := rc.ask(b, d.tb, "approve", d.hash)
		var e1, e2 error
		rc.together(func() { _, e1 = a.decide(d.id, cancel, "", true) }, func() { _, e2 = rc.confirm(b, d, approve, d.hash) })
		v, err := rc.s.rooms.Read(rc.s.ctx, a.agent, d.ta)
		if err != nil {
			rc.s.t.Fatal(err)
		}
		ok := (e1 == nil) != (e2 == nil) &&
			(e1 == nil && v.State == negotiation.StateClosed && v.ClosedReason == negotiation.ClosedCancelled ||
				e2 == nil && v.State == negotiation.StateAgreed)
		if !ok {
			rc.s.t.Errorf("room %d: cancel %v, approve %v, room %s/%s: want exactly one", d.id, e1, e2, v.State, v.ClosedReason)
		}
		rc.stats.note("cancel against approve", string(v.State)+" "+string(v.ClosedReason))
	}},
	{"join against withdraw", func(rc *racer, a, b *tenant) {
		d := rc.newDuo(a, b, false, rc.rng.IntN(2) == 0)
		cancel := rc.ask(a, d.ta, "cancel", "")
		var e error
		var r result
		rc.together(func() { _, e = a.decide(d.id, cancel, "", true) },
			func() {
				r = rc.call(b, 1, "negotiation_join", map[string]any{"invite_code": d.tb, "subject_schema": raceSchema})
			})
		v, err := rc.s.rooms.Read(rc.s.ctx, a.agent, d.ta)
		if err != nil {
			rc.s.t.Fatal(err)
		}
		want := negotiation.ClosedWithdrawn
		if r.err == "" {
			want = negotiation.ClosedCancelled
		} else if r.err != "invite: the invitation was withdrawn" { // refused with the reason (seed 001)
			rc.s.t.Errorf("room %d: join refused with %q", d.id, r.err)
		}
		if e != nil || v.State != negotiation.StateClosed || v.ClosedReason != want {
			rc.s.t.Errorf("room %d: withdraw %v, join %q, room %s/%s, want closed/%s", d.id, e, r.err, v.State, v.ClosedReason, want)
		}
		rc.stats.note("join against withdraw", string(v.ClosedReason))
	}},
	{"confirm against decline", func(rc *racer, a, b *tenant) {
		// The dashboard says yes while the one-tap link says no.
		d := rc.newDuo(a, b, true, true)
		cid := rc.ask(b, d.tb, "approve", d.hash)
		tok := rc.s.oneTap(d.id, cid)
		var d1, d2 *app.Decision
		var e1, e2 error
		rc.together(func() { d1, e1 = rc.confirm(b, d, cid, d.hash) },
			func() { d2, e2 = rc.s.rooms.DecideOneTap(rc.s.ctx, tok, negotiation.SubjectHash(d.hash), false) })
		if (e1 == nil) == (e2 == nil) {
			rc.s.t.Errorf("room %d: yes %v/%v and no %v/%v at once: want exactly one", d.id, d1, e1, d2, e2)
		}
		rc.stats.note("confirm against decline", "yes "+errText(e1)+" / no "+errText(e2))
	}},
	{"same counter twice", func(rc *racer, a, b *tenant) {
		// A retried move racing its first sending: both are answered, one
		// is applied.
		d := rc.newDuo(a, b, true, true)
		rc.fee++
		args := map[string]any{"room_token": d.tb, "verdict": "counter", "subject": feeTerms(rc.fee)}
		var r1, r2 result
		rc.together(func() { r1 = rc.call(b, 0, "negotiation_propose", args) }, func() { r2 = rc.call(b, 1, "negotiation_propose", args) })
		if r1.err != "" || r2.err != "" {
			rc.s.t.Errorf("room %d: the same counter twice: %q / %q; want both answered", d.id, r1.err, r2.err)
		} else {
			rc.stats.ack(d.id, tableHash(r1.out))
		}
		rc.stats.note("same counter twice", "both answered")
	}},
	{"two different counters", func(rc *racer, a, b *tenant) {
		d := rc.newDuo(a, b, true, true)
		rc.fee += 2
		var r1, r2 result
		rc.together(func() {
			r1 = rc.call(b, 0, "negotiation_propose", map[string]any{"room_token": d.tb, "verdict": "counter", "subject": feeTerms(rc.fee - 1)})
		}, func() {
			r2 = rc.call(b, 1, "negotiation_propose", map[string]any{"room_token": d.tb, "verdict": "counter", "subject": feeTerms(rc.fee)})
		})
		if (r1.err == "") == (r2.err == "") {
			rc.s.t.Errorf("room %d: two counters at once: %q / %q; want exactly one", d.id, r1.err, r2.err)
		}
		for _, r := range []result{r1, r2} {
			if r.err == "" {
				rc.stats.ack(d.id, tableHash(r.out))
			} else if !strings.HasPrefix(r.err, "not your turn") {
				rc.s.t.Errorf("room %d: the losing counter was told %q", d.id, r.err)
			}
		}
		rc.stats.note("two different counters", "one applied, one not your turn")
	}},
}

func orOK(msg string) string {
	if msg == "" {
		return "ok"
	}
	return msg
}

// TestRaces races pairs of moves through the real HTTP endpoints, across
// many rooms and tenants at once, then checks the store: every room is the
// replay of its log, no move or confirmation applied twice, no
// confirmation applied to other terms, no acknowledged move lost.
func TestRaces(t *testing.T) {
	pairs := size(200, 1200)
	workers := 4
	s := newStack(t, stackConfig{tenants: 8})
	stats := &raceStats{outcomes: map[string]map[string]int{}}
	began := time.Now()

	// A reader reads the rooms as they change and checks each view is
	// whole: its round, rounds and terms on the table agree.
	stop := make(chan struct{})
	var reads, torn atomic.Int64
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		a := s.tenants[0]
		sess := a.connect(a.key)
		for {
			select {
			case <-stop:
				return
			default:
			}
			r, err := callOn(s.ctx, sess, "negotiation_list", map[string]any{})
			if err != nil || r.err != "" {
				continue
			}
			rooms, _ := r.out["rooms"].([]any)
			for _, x := range rooms[:min(len(rooms), 5)] {
				tok, _ := x.(map[string]any)["room_token"].(string)
				v, err := callOn(s.ctx, sess, "negotiation_read", map[string]any{"room_token": tok, "history": true})
				if err != nil || v.err != "" {
					continue
				}
				reads.Add(1)
				if msg := tornView(v.out); msg != "" {
					torn.Add(1)
					t.Errorf("a torn view of a room: %s", msg)
				}
			}
		}
	}()

	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := &racer{s: s, rng: rand.New(rand.NewPCG(uint64(w), 7)), sess: map[*tenant][2]*mcp.ClientSession{}, fee: w * 1_000_000, stats: stats}
			for {
				i := int(next.Add(1)) - 1
				if i >= pairs || t.Failed() {
					return
				}
				a := s.tenants[rc.rng.IntN(len(s.tenants))]
				b := s.tenants[rc.rng.IntN(len(s.tenants))]
				if a == b {
					b = s.tenants[(indexOf(s.tenants, a)+1)%len(s.tenants)]
				}
				k := raceKinds[i%len(raceKinds)]
				k.run(rc, a, b)
				stats.pairs.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-readerDone
	elapsed := time.Since(began)

	rep := s.check()
	twice := s.count(`SELECT count(*) FROM (SELECT room_id, event::jsonb->>'confirmation_id' FROM room_events
		WHERE kind = 'decide' GROUP BY 1, 2 HAVING count(*) > 1) x`)
	twice += s.count(`SELECT count(*) FROM room_events e JOIN room_events f ON f.room_id = e.room_id AND f.seq = e.seq + 1
		WHERE e.kind = 'propose' AND f.kind = 'propose' AND e.side = f.side`)
	otherTerms := s.count(`SELECT count(*) FROM room_events d JOIN room_events r ON r.room_id = d.room_id AND r.kind = 'request'
		AND r.event::jsonb->>'confirmation_id' = d.event::jsonb->>'confirmation_id'
		WHERE d.kind = 'decide' AND d.event::jsonb->>'outcome' = 'applied'
		AND coalesce(d.event::jsonb->>'subject_hash', '') <> coalesce(r.event::jsonb->>'subject_hash', '')`)
	otherTerms += s.count(`SELECT count(*) FROM confirmations c WHERE c.status = 'applied' AND NOT EXISTS (
		SELECT 1 FROM room_events d WHERE d.room_id = c.room_id AND d.kind = 'decide'
		AND d.event::jsonb->>'confirmation_id' = c.id AND d.event::jsonb->>'outcome' = 'applied'
		AND coalesce(d.event::jsonb->>'subject_hash', '') = coalesce(c.subject_hash, ''))`)
	lost := 0
	for _, m := range stats.acked {
		if m.hash == "" || !s.proposeWithHash(m.room, m.hash) {
			lost++
		}
	}
	if twice != 0 || otherTerms != 0 || lost != 0 {
		t.Errorf("applied twice: %d, confirmations applied to other terms: %d, acknowledged moves lost: %d", twice, otherTerms, lost)
	}
	t.Logf("races: %d pairs in %s over %d rooms (%d workers, %d tenants); checker: %d rooms, %d differences; "+
		"applied twice: %d; confirmations on other terms: %d; acknowledged moves lost: %d of %d; concurrent reads: %d, torn: %d",
		stats.pairs.Load(), elapsed.Round(time.Millisecond), rep.Rooms, workers, len(s.tenants), rep.Rooms, len(rep.Differences),
		twice, otherTerms, lost, len(stats.acked), reads.Load(), torn.Load())
	var kinds []string
	for k := range stats.outcomes {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		t.Logf("  %s: %v", k, stats.outcomes[k])
	}
}

func indexOf(ts []*tenant, x *tenant) int {
	for i, t := range ts {
		if t == x {
			return i
		}
	}
	return -1
}

// count runs a query that returns one number.
func (s *stack) count(sql string, args ...any) int {
	s.t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		s.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// proposeWithHash reports whether the room's log tabled terms with hash.
func (s *stack) proposeWithHash(room int64, hash string) bool {
	s.t.Helper()
	rows, err := s.pool.Query(s.ctx, `SELECT event FROM room_events WHERE room_id = $1 AND kind = 'propose'`, room)
	if err != nil {
		s.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var ev string
		if err := rows.Scan(&ev); err != nil {
			s.t.Fatal(err)
		}
		if termsIn(ev, hash) {
			return true
		}
	}
	return false
}

// termsIn reports whether a logged propose event tabled terms with hash.
func termsIn(event, hash string) bool {
	var e negotiation.Event
	if err := json.Unmarshal([]byte(event), &e); err != nil {
		return false
	}
	for _, raw := range e.Terms {
		if string(negotiation.HashOf(raw)) == hash {
			return true
		}
	}
	return false
}

// tornView says what is wrong with a view whose parts disagree: its round
// and its rounds, or its terms on the table and the last terms tabled.
func tornView(v map[string]any) string {
	rounds, _ := v["rounds"].([]any)
	round, _ := v["round"].(float64)
	n, lastHash := 0, ""
	for _, x := range rounds {
		rv, _ := x.(map[string]any)
		switch rv["verdict"] {
		case "offer", "counter", "need_more_detail":
			n++
			if terms, ok := rv["terms"].([]any); ok && len(terms) > 0 {
				lastHash, _ = terms[0].(map[string]any)["subject_hash"].(string)
			} else if rv["verdict"] != "need_more_detail" {
				lastHash = tableHash(v) // a move's terms are left out when they are on the table
			}
		}
	}
	if n != int(round) {
		return fmt.Sprintf("round %v but %d tabling moves in rounds", round, n)
	}
	if h := tableHash(v); h != "" && lastHash != "" && v["state"] == "awaiting" {
		t, _ := v["terms_on_table"].(map[string]any)
		if opts, _ := t["options"].([]any); len(opts) == 1 && h != lastHash {
			return fmt.Sprintf("terms on the table %s, last tabled %s", h, lastHash)
		}
	}
	return ""
}
