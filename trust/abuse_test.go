package trust

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taasky/taasky/mcpserver"
	"github.com/taasky/taasky/negotiation"
)

// TestRateLimitPerAgentKey floods /mcp with one agent key: past the burst
// every tool call is a tool error saying the rule, with Retry-After (what
// is not a tool call gets 429), other keys are not slowed, unknown keys
// get no bucket, and the key works again once the bucket refills.
func TestRateLimitPerAgentKey(t *testing.T) {
	rl := mcpserver.RateLimit{Rate: 5, Burst: 10}
	s := newStack(t, stackConfig{tenants: 2, rate: rl})
	a, b := s.tenants[0], s.tenants[1]
	read := toolCall("negotiation_read", []byte(`{"room_token":"x"}`))
	ok, limited := 0, 0
	var retry string
	var msg string
	began := time.Now()
	for range 40 {
		ans := s.rawPost("/mcp/"+a.slug, a.key, read, nil)
		switch {
		case ans.status != http.StatusOK:
			t.Fatalf("HTTP %d %s", ans.status, ans.body)
		case ans.header.Get("Retry-After") == "":
			ok++
		default:
			limited++
			retry, msg = ans.header.Get("Retry-After"), ans.msg
		}
	}
	elapsed := time.Since(began)
	// The burst, plus what refilled meanwhile.
	allowed := rl.Burst + int(math.Ceil(elapsed.Seconds()*rl.Rate))
	// The session's initialize and initialized notification took two tokens.
	if ok < rl.Burst-2 || ok > allowed || limited == 0 {
		t.Errorf("40 calls in %s: %d answered, %d limited; want %d to %d answered", elapsed, ok, limited, rl.Burst-2, allowed)
	}
	if n, err := strconv.Atoi(retry); err != nil || n < 1 {
		t.Errorf("Retry-After %q", retry)
	}
	if !strings.Contains(msg, "rate limit: at most 5 calls a second per agent, all its keys and tokens together (bursts of 10); retry after") {
		t.Errorf("past the limit a call says %q", msg)
	}
	// Another key is not slowed by a's flood; unknown keys are refused, not
	// counted.
	for range 5 {
		if ans := s.rawPost("/mcp/"+b.slug, b.key, read, nil); ans.status != http.StatusOK {
			t.Errorf("b's key while a is limited: HTTP %d", ans.status)
		}
		if ans := s.rawPost("/mcp/"+a.slug, "tsk_"+strings.Repeat("Q", 43), read, nil); ans.status != http.StatusUnauthorized {
			t.Errorf("an unknown key: HTTP %d", ans.status)
		}
	}
	// The go-sdk client's caller reads the rule too, a tool error: a 429
	// told it "Too Many Requests" alone, as go-sdk's client reads no body
	// of a 429 (right after the bucket is drained: a token may refill
	// meanwhile on a slow machine, then the call is tried again, three
	// times at most).
	var told string
	for range 3 {
		for range 2 * rl.Burst { // drain the bucket
			if s.rawPost("/mcp/"+a.slug, a.key, read, nil).header.Get("Retry-After") != "" {
				break
			}
		}
		res, err := callOn(s.ctx, a.sess, "negotiation_list", map[string]any{})
		if err != nil {
			t.Fatalf("the client while limited: %v", err)
		}
		if told = res.err; told != "" {
			break
		}
	}
	if !strings.HasPrefix(told, "rate limit: at most 5 calls a second per agent, all its keys and tokens together (bursts of 10); retry after") {
		t.Errorf("the client while limited was told %q", told)
	}
	if ans := s.rawPost("/mcp/"+a.slug, a.key, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), nil); ans.status != http.StatusTooManyRequests ||
		ans.header.Get("Retry-After") == "" {
		t.Errorf("tools/list while limited: HTTP %d, Retry-After %q; want 429 with Retry-After", ans.status, ans.header.Get("Retry-After"))
	}
	n, _ := strconv.Atoi(retry)
	time.Sleep(time.Duration(n) * time.Second)
	if ans := s.rawPost("/mcp/"+a.slug, a.key, read, nil); ans.status != http.StatusOK || ans.header.Get("Retry-After") != "" {
		t.Errorf("after Retry-After: HTTP %d %s", ans.status, ans.msg)
	}
	t.Logf("rate limit %v/s burst %d: 40 calls in %s, %d answered, %d limited (Retry-After %s s): %q",
		rl.Rate, rl.Burst, elapsed.Round(time.Millisecond), ok, limited, retry, msg)
}

// TestRoundCapAndCooldown plays a room to its round cap with a clock the
// test moves: a side's counter within the cool-down is refused and the
// room says from when it is allowed; at the cap only approve, reject and
// cancel remain, and approving still works.
func TestRoundCapAndCooldown(t *testing.T) {
	clock := &atomic.Int64{}
	clock.Store(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	tick := func(d time.Duration) { clock.Add(int64(d)) }
	pace := negotiation.Pace{MaxRounds: 6, Cooldown: 90 * time.Second}
	s := newStack(t, stackConfig{tenants: 2, pace: pace, now: now})
	a, b := s.tenants[0], s.tenants[1]
	ta, tb, _ := s.pair(a, b, raceSchema, nil, nil, feeTerms(1)) // round 1: a's offer
	counter := func(tn *tenant, tok string, fee int) result {
		return tn.call("negotiation_propose", map[string]any{"room_token": tok, "verdict": "counter", "subject": feeTerms(fee)})
	}
	tick(10 * time.Second)
	if r := counter(b, tb, 2); r.err != "" { // round 2
		t.Fatal(r.err)
	}
	tick(10 * time.Second)
	// a offered 20 s ago: its counter must wait until 90 s after the offer.
	r := counter(a, ta, 3)
	want := "too soon for another counter: the next is allowed from 2026-12-01T09:01:30Z"
	if r.err != want {
		t.Fatalf("a's early counter: %q, want %q", r.err, want)
	}
	v := a.must("negotiation_read", map[string]any{"room_token": ta})
	if v.str("next_counter_at") != "2026-12-01T09:01:30Z" || !strings.Contains(v.str("next", "say"), "You may counter again from 2026-12-01T09:01:30Z") {
		t.Errorf("the room does not say when a may counter: %v / %q", v.out["next_counter_at"], v.str("next", "say"))
	}
	if verdicts, _ := v.out["next"].(map[string]any)["verdicts"].([]any); containsAny(verdicts, "counter") {
		t.Errorf("next offers counter during the cool-down: %v", verdicts)
	}
	// need_more_detail and approve are not held back.
	tick(70 * time.Second) // 09:01:30: allowed from this second on
	if r := counter(a, ta, 3); r.err != "" {
		t.Fatalf("a's counter when allowed: %s", r.err)
	}
	for fee := 4; ; fee++ { // up to the cap
		tick(2 * time.Minute)
		tn, tok := b, tb
		if fee%2 == 1 {
			tn, tok = a, ta
		}
		r := counter(tn, tok, fee)
		round := int(tn.must("negotiation_read", map[string]any{"room_token": tok}).out["round"].(float64))
		if round == pace.MaxRounds {
			if r.err != "" {
				t.Fatalf("the move that reaches the cap: %s", r.err)
			}
			break
		}
		if r.err != "" {
			t.Fatalf("round %d: %s", round, r.err)
		}
	}
	// At the cap: the side to move may approve, reject or cancel only.
	tick(2 * time.Minute)
	var tn *tenant
	var tok string
	for _, x := range []struct {
		tn  *tenant
		tok string
	}{{a, ta}, {b, tb}} {
		if x.tn.must("negotiation_read", map[string]any{"room_token": x.tok}).out["turn"] == "you" {
			tn, tok = x.tn, x.tok
		}
	}
	want = "this room reached its cap of 6 rounds: approve, reject or cancel"
	if r := counter(tn, tok, 99); r.err != want {
		t.Errorf("a counter past the cap: %q, want %q", r.err, want)
	}
	if r := tn.call("negotiation_propose", map[string]any{"room_token": tok, "verdict": "need_more_detail", "fields": []string{"fee"}}); r.err != want {
		t.Errorf("need_more_detail past the cap: %q", r.err)
	}
	v = tn.must("negotiation_read", map[string]any{"room_token": tok})
	verdicts, _ := v.out["next"].(map[string]any)["verdicts"].([]any)
	if containsAny(verdicts, "counter", "need_more_detail", "offer") || !containsAny(verdicts, "approve") {
		t.Errorf("next at the cap: %v", verdicts)
	}
	h := tableHash(v.out)
	cid := tn.must("negotiation_respond", map[string]any{"room_token": tok, "verdict": "approve", "subject_hash": h}).str("pending_confirmation", "id")
	if d, err := tn.decide(tn.roomID(tok), cid, negotiation.SubjectHash(h), true); err != nil || d.Result != negotiation.ResultApplied {
		t.Errorf("approving at the cap: %v %v", d, err)
	}
	s.check()
	t.Logf("pace: cap %d rounds, cool-down %s: early counter refused with its moment, next_counter_at shown, cap refuses counter and need_more_detail, approve at the cap applied",
		pace.MaxRounds, pace.Cooldown)
}

func containsAny(list []any, vs ...string) bool {
	for _, x := range list {
		for _, v := range vs {
			if x == v {
				return true
			}
		}
	}
	return false
}

// TestSecretsUnguessable collects invitation codes, room tokens and agent
// keys as the service issues them: each carries at least
// 128 random bits (length × bits per character of its alphabet), none
// repeats, and the characters of the codes are spread as random ones are.
func TestSecretsUnguessable(t *testing.T) {
	n := size(200, 2000)
	s := newStack(t, stackConfig{tenants: 2})
	a := s.tenants[0]
	codes := map[string]bool{}
	tokens := map[string]bool{}
	counts := map[rune]int{}
	for range n {
		open := a.must("negotiation_open", map[string]any{"subject_schema": raceSchema})
		code, tok := open.str("invite_code"), open.str("room_token")
		if codes[code] || tokens[tok] {
			t.Fatalf("a code or token issued twice: %s %s", code, tok)
		}
		codes[code], tokens[tok] = true, true
		for _, r := range code {
			counts[r]++
		}
	}
	bits := func(s, prefix string, alphabet float64) float64 {
		return float64(len(strings.TrimPrefix(s, prefix))) * math.Log2(alphabet)
	}
	var code, tok string
	for c := range codes {
		code = c
	}
	for x := range tokens {
		tok = x
	}
	figures := map[string]float64{
		"invitation code": bits(code, "", 32), "room token": bits(tok, "rt_", 64), "agent key": bits(a.key, "tsk_", 64),
	}
	for what, b := range figures {
		if b < 128 {
			t.Errorf("%s: %.0f bits", what, b)
		}
	}
	// A chi-square test of the base32 characters of the codes: 31 degrees
	// of freedom, p = 1e-6 at 84.2. (At p = 0.001 it failed one run in a
	// thousand by chance; a missing symbol, or one twice as frequent as the
	// others, gives about 200.)
	total := 0
	for _, c := range counts {
		total += c
	}
	expected := float64(total) / 32
	chi := 0.0
	for _, r := range "abcdefghijklmnopqrstuvwxyz234567" {
		d := float64(counts[r]) - expected
		chi += d * d / expected
	}
	if len(counts) != 32 || chi > 84.2 {
		t.Errorf("the codes' characters are not spread as random ones: %d symbols, chi-square %.1f", len(counts), chi)
	}
	// Guessing: codes that are not issued are refused, one line, no hint.
	guesses := 0
	for i := range 50 {
		g := strings.Repeat(string("abcdefghijklmnopqrstuvwxyz234567"[i%32]), 32)
		r := a.call("negotiation_join", map[string]any{"invite_code": g, "subject_schema": raceSchema})
		guesses++
		if r.err != "invite: no invitation has this code" {
			t.Errorf("a guessed code: %q", r.err)
		}
	}
	t.Logf("secrets: %d codes and %d room tokens issued, none twice; invitation code %.0f bits, room token %.0f bits, agent key %.0f bits; "+
		"code characters chi-square %.1f (31 df, p=1e-6 at 84.2); %d guesses refused", len(codes), len(tokens),
		figures["invitation code"], figures["room token"], figures["agent key"], chi, guesses)
}
