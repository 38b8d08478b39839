package trust

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// A secret is a private limit's value; its needles are every way it could
// be written where the other side could read it.
type secret struct {
	owner   *tenant
	room    int
	what    string
	needles []string
	shown   []string // what the owner's own pages show of it besides the needles
}

// genField is one field of a random schema with its limit and a way to
// make values that keep inside (or go outside) the limit.
type genField struct {
	name, kind, currency string
	schema               map[string]any
	limit                map[string]any // nil: no limit
	needles              []string
	shown                []string // the owner's own view of the limit: not secret to the owner
	inside               func(*rand.Rand) any
	anyValue             func(*rand.Rand) any
}

var currencies = []struct {
	code   string
	digits int
}{{"EUR", 2}, {"USD", 2}, {"JPY", 0}, {"BHD", 3}, {"CHF", 2}}

func amount(units int64, digits int) string {
	if digits == 0 {
		return fmt.Sprint(units)
	}
	p := int64(1)
	for range digits {
		p *= 10
	}
	return fmt.Sprintf("%d.%0*d", units/p, digits, units%p)
}

// moneyNeedles is an amount in every formatting: in minor units, and as
// declared, with fewer or more decimals, with a decimal point or comma,
// its whole part grouped by thousands with each separator a language uses
// (none, ",", ".", a space, a narrow or no-break space, "'"), and the
// whole part alone when it is grouped (1,350; but not 1350, which a
// request id or a count may be).
func moneyNeedles(units int64, digits int) []string {
	whole, frac, _ := strings.Cut(amount(units, digits), ".")
	out := []string{fmt.Sprint(units)}
	seen := map[string]bool{}
	for _, group := range []string{"", ",", ".", " ", "\u202f", "\u00a0", "'"} {
		w := groupThousands(whole, group)
		for _, f := range []string{"", frac, strings.TrimRight(frac, "0"), frac + "0"} {
			for _, mark := range []string{".", ","} {
				n := w
				if f != "" {
					n += mark + f
				}
				if n == whole && frac != "" {
					continue // a few digits alone are a request id's, a count's: not this amount
				}
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// groupThousands writes a whole number's digits in groups of three.
func groupThousands(whole, sep string) string {
	var b strings.Builder
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteByte(whole[i])
	}
	return b.String()
}

func dateNeedles(d time.Time) []string {
	return []string{d.Format("2006-01-02"), d.Format("20060102"), d.Format("2 Jan 2006"), d.Format("Jan 2, 2006"),
		d.Format("02/01/2006"), d.Format("01/02/2006"), d.Format("02.01.2006"), d.Format("2 January 2006")}
}

// momentNeedles is a moment with its date and minute, in UTC and in its own
// offset, as RFC 3339 and as a card writes it, and in Unix seconds.
func momentNeedles(t time.Time) []string {
	var out []string
	for _, x := range []time.Time{t, t.UTC()} {
		out = append(out, x.Format("2006-01-02T15:04"), x.Format("2006-01-02 15:04"), x.Format("2 Jan 2006, 15:04"),
			x.Format("2 Jan 2006 15:04"), x.Format("Jan 2, 2006 15:04"))
	}
	return append(out, fmt.Sprint(t.Unix()), fmt.Sprint(t.UnixMilli()))
}

// newField makes a random field of kind with a random limit (or none).
func newField(rng *rand.Rand, name, kind string, limited bool) *genField {
	f := &genField{name: name, kind: kind}
	label := strings.ToUpper(name[:1]) + name[1:]
	switch kind {
	case "int":
		f.schema = map[string]any{"type": "int", "label": label}
		lo := int64(100000 + rng.IntN(400000))
		hi := lo + int64(1000+rng.IntN(400000))
		f.anyValue = func(r *rand.Rand) any { return 100000 + r.Int64N(900000) }
		f.inside = f.anyValue
		if limited {
			f.limit = map[string]any{"min": lo, "max": hi}
			for _, v := range []int64{lo, hi} {
				f.needles = append(f.needles, fmt.Sprint(v), fmt.Sprintf("%d,%03d", v/1000, v%1000),
					fmt.Sprintf("%d.%03d", v/1000, v%1000), fmt.Sprintf("%d %03d", v/1000, v%1000))
			}
			f.inside = func(r *rand.Rand) any { return lo + 1 + r.Int64N(hi-lo-1) }
		}
	case "money":
		c := currencies[rng.IntN(len(currencies))]
		f.currency = c.code
		f.schema = map[string]any{"type": "money", "label": label, "currency": c.code}
		lo := int64(1_000_000 + rng.IntN(40_000_000))
		hi := lo + int64(10_000+rng.IntN(40_000_000))
		mk := func(u int64) any { return map[string]any{"amount": amount(u, c.digits), "currency": c.code} }
		f.anyValue = func(r *rand.Rand) any { return mk(1_000_000 + r.Int64N(90_000_000)) }
		f.inside = f.anyValue
		if limited {
			f.limit = map[string]any{"min": mk(lo), "max": mk(hi)}
			f.needles = append(moneyNeedles(lo, c.digits), moneyNeedles(hi, c.digits)...)
			f.inside = func(r *rand.Rand) any { return mk(lo + 1 + r.Int64N(hi-lo-1)) }
		}
	case "date":
		f.schema = map[string]any{"type": "date", "label": label}
		base := time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
		lo := base.AddDate(0, 0, rng.IntN(300))
		hi := lo.AddDate(0, 0, 3+rng.IntN(200))
		f.anyValue = func(r *rand.Rand) any { return base.AddDate(0, 0, r.IntN(700)).Format(time.DateOnly) }
		f.inside = f.anyValue
		if limited {
			f.limit = map[string]any{"min": lo.Format(time.DateOnly), "max": hi.Format(time.DateOnly)}
			f.needles = append(dateNeedles(lo), dateNeedles(hi)...)
			days := int(hi.Sub(lo).Hours()/24) - 1
			f.inside = func(r *rand.Rand) any { return lo.AddDate(0, 0, 1+r.IntN(days)).Format(time.DateOnly) }
		}
	case "timerange":
		f.schema = map[string]any{"type": "timerange", "label": label}
		zone := time.FixedZone("", (rng.IntN(25)-12)*3600)
		day := time.Date(2028, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, zone)
		// Limits on odd minutes; terms on the half hour: a minute of a
		// limit never shows up in terms.
		lo := day.Add(time.Duration(6*60+rng.IntN(120)*2+1) * time.Minute)
		hi := lo.Add(time.Duration(4*60+rng.IntN(60)*2) * time.Minute)
		slot := func(r *rand.Rand, from time.Time, n int) any {
			s := from.Truncate(30 * time.Minute).Add(time.Duration(1+r.IntN(n)) * 30 * time.Minute)
			return map[string]any{"start": s.Format(time.RFC3339), "end": s.Add(30 * time.Minute).Format(time.RFC3339)}
		}
		f.anyValue = func(r *rand.Rand) any { return slot(r, day, 40) }
		f.inside = f.anyValue
		if limited {
			f.limit = map[string]any{"min": lo.Format(time.RFC3339), "max": hi.Format(time.RFC3339)}
			f.needles = append(momentNeedles(lo), momentNeedles(hi)...)
			// The owner's dashboard writes its own limit as dates too ("not
			// after Fri 18 Aug 2028"): in the owner's view those dates are
			// its own, whoever else's limit they might equal.
			for _, x := range []time.Time{lo, hi, lo.UTC(), hi.UTC()} {
				f.shown = append(f.shown, dateNeedles(x)...)
			}
			f.inside = func(r *rand.Rand) any { return slot(r, lo, int(hi.Sub(lo).Minutes())/30-2) }
		}
	case "enum":
		vals := []string{"office", "video", "phone", "cafe", "park"}
		f.schema = map[string]any{"type": "enum", "label": label, "values": vals}
		f.anyValue = func(r *rand.Rand) any { return vals[r.IntN(len(vals))] }
		f.inside = f.anyValue
		if limited {
			one := vals[:2+rng.IntN(2)]
			f.limit = map[string]any{"one_of": one}
			f.inside = func(r *rand.Rand) any { return one[r.IntN(len(one))] }
		}
	case "bool":
		f.schema = map[string]any{"type": "bool", "label": label}
		f.anyValue = func(r *rand.Rand) any { return r.IntN(2) == 0 }
		f.inside = f.anyValue
		if limited {
			f.limit = map[string]any{"equals": true}
			f.inside = func(*rand.Rand) any { return true }
		}
	}
	return f
}

// party is one side's random declaration.
type party struct {
	fields []*genField
}

func (p *party) schema() map[string]any {
	m := map[string]any{}
	for _, f := range p.fields {
		m[f.name] = f.schema
	}
	return m
}

func (p *party) limits() map[string]any {
	m := map[string]any{}
	for _, f := range p.fields {
		if f.limit != nil {
			m[f.name] = f.limit
		}
	}
	return m
}

func (p *party) terms(rng *rand.Rand, inside bool) map[string]any {
	m := map[string]any{}
	for _, f := range p.fields {
		if inside {
			m[f.name] = f.inside(rng)
		} else {
			m[f.name] = f.anyValue(rng)
		}
	}
	return m
}

var kinds = []string{"int", "money", "date", "timerange", "enum", "bool"}

// randomParties makes a's and b's declarations: mostly the same fields (so
// limits meet, flags and no-deal notes happen), sometimes fields of their own.
func randomParties(rng *rand.Rand) (*party, *party) {
	a, b := &party{}, &party{}
	n := 1 + rng.IntN(4)
	used := map[string]bool{}
	for range n {
		k := kinds[rng.IntN(len(kinds))]
		name := k
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s%d", k, i)
		}
		used[name] = true
		fa := newField(rng, name, k, rng.IntN(4) > 0)
		a.fields = append(a.fields, fa)
		if rng.IntN(5) == 0 {
			continue // b lacks it
		}
		fb := newField(rng, name, k, rng.IntN(4) > 0)
		if k == "money" {
			fb = sameCurrency(rng, fb, fa.currency)
		}
		b.fields = append(b.fields, fb)
	}
	if len(b.fields) == 0 {
		b.fields = append(b.fields, newField(rng, "extra", "int", true))
	}
	return a, b
}

// sameCurrency remakes a money field until it has the given currency.
func sameCurrency(rng *rand.Rand, f *genField, code string) *genField {
	for f.currency != code {
		f = newField(rng, f.name, "money", f.limit != nil)
	}
	return f
}

var (
	stripTokens = regexp.MustCompile(`sha256:[0-9a-f]+|\b(?:rt|cf|ot|tsk)_[A-Za-z0-9_-]{16,}|/i/[a-z2-7]{32}|"invite_code":"[a-z2-7]{32}"|` +
		`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)|Message-I[Dd]: <[^>]*>|boundary=[^\s;]+|--[0-9a-f]{20,}|` +
		`[A-Za-z0-9+/=]{60,}`)
)

// measured are the log's measurements (River's durations, in
// nanoseconds), not anything a party said: an amount's minor units can
// match one by chance (17170167 ns; seen once in a full run).
var measured = regexp.MustCompile(`"duration":\d+|\bduration=\d+`)

// found reports whether needle appears in text as a value of its own (not
// inside a longer number).
func found(text, needle string) bool {
	digit := func(b byte) bool { return b >= '0' && b <= '9' }
	for from := 0; ; {
		i := strings.Index(text[from:], needle)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(needle)
		// Not part of a longer number: no digit next to it, nor a decimal
		// mark or a group separator that only numbers use which joins it
		// to more digits (305042 is not in 305042.60, 731,40 not in
		// 12 731,40 with a narrow no-break space). A plain space is not
		// one: "round 2 12,345.60" holds 12,345.60.
		joined := func(s string, before bool) bool {
			for _, sep := range []string{".", ",", "\u202f", "'"} {
				if before && strings.HasSuffix(s, sep) && len(s) > len(sep) && digit(s[len(s)-len(sep)-1]) ||
					!before && strings.HasPrefix(s, sep) && len(s) > len(sep) && digit(s[len(sep)]) {
					return true
				}
			}
			return false
		}
		left := i == 0 || !digit(text[i-1]) && !joined(text[:i], true)
		right := j >= len(text) || !digit(text[j]) && !joined(text[j:], false)
		if left && right {
			return true
		}
		from = i + 1
	}
}

// TestLimitSecrecy runs random negotiations with random schemas and limits
// and captures everything each side receives (tool results, error texts,
// its dashboard pages, its emails, its pushes, its webhooks) to show that no limit of the other side
// appears in it, in any formatting. A share of the negotiations is played
// twice, the second time with the other side declaring no limits: the
// mover's answers must be the same.
func TestLimitSecrecy(t *testing.T) {
	rounds := size(50, 1000)
	s := newStack(t, stackConfig{tenants: 6, notify: true, dashboard: true})
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("TAASKY_SECRECY_SEED"); v != "" { // replay a failing run
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("TAASKY_SECRECY_SEED: %v", err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	browsers := map[*tenant]*browser{}
	for _, tn := range s.tenants {
		browsers[tn] = tn.browser()
	}
	var secrets []secret
	public := map[string]bool{} // needles of values some party declared as terms, or its own limits
	pages := map[*tenant]*strings.Builder{}
	for _, tn := range s.tenants {
		pages[tn] = &strings.Builder{}
	}
	twins, twinDiffs := 0, 0
	began := time.Now()
	for i := range rounds {
		a := s.tenants[rng.IntN(len(s.tenants))]
		b := s.tenants[(indexOf(s.tenants, a)+1+rng.IntN(len(s.tenants)-1))%len(s.tenants)]
		pa, pb := randomParties(rng)
		for _, f := range pa.fields {
			if len(f.needles) > 0 {
				secrets = append(secrets, secret{owner: a, room: i, what: fmt.Sprintf("%s %v", f.name, f.limit), needles: f.needles, shown: f.shown})
			}
		}
		for _, f := range pb.fields {
			if len(f.needles) > 0 {
				secrets = append(secrets, secret{owner: b, room: i, what: fmt.Sprintf("%s %v", f.name, f.limit), needles: f.needles, shown: f.shown})
			}
		}
		script := negotiationScript{a: a, b: b, pa: pa, pb: pb, seed: rng.Uint64(), public: public}
		answers, roomID := script.play(s, pa.limits())
		for _, tn := range []*tenant{a, b} {
			_, _, body := browsers[tn].do("GET", fmt.Sprintf("/rooms/%d", roomID), nil)
			pages[tn].WriteString(body)
		}
		if i%10 == 0 {
			// The twin: the same moves, a declaring no limits. What b is told
			// must not change (bar the no-deal note, which is shared by design).
			twins++
			twin, _ := script.play(s, nil)
			if msg := sameAnswers(answers, twin); msg != "" {
				twinDiffs++
				t.Errorf("negotiation %d: b was told something else when a had no limits: %s", i, msg)
			}
		}
	}
	for _, tn := range s.tenants {
		_, _, body := browsers[tn].do("GET", "/", nil)
		pages[tn].WriteString(body)
		// Their "Download my data" (posted with the CSRF token of the page
		// just read): every room they answer for, whole, in one file.
		st, _, file := browsers[tn].do("POST", "/settings/my-data", url.Values{})
		if st != http.StatusOK || !strings.Contains(file, `"format": "taasky-my-data"`) {
			t.Fatalf("%s's data: %d\n%.300s", tn.slug, st, file)
		}
		pages[tn].WriteString(unescapeJSON(file))
	}
	// Mail: wait for the queue to empty, then read each recipient's mail.
	deadline := time.Now().Add(2 * time.Minute)
	for queued := `SELECT count(*) FROM river_job WHERE kind IN ('notify_email', 'notify_push', 'webhook')
		AND state IN ('available', 'running', 'retryable', 'pending')`; s.count(queued) > 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d notification jobs still queued after 2 minutes: the mail read below would be short", s.count(queued))
		}
	}
	mails := map[string]*strings.Builder{}
	for _, m := range s.smtp.Mails() {
		_, body, err := readMail(m.Data)
		if err != nil {
			t.Errorf("mail: %v", err)
			continue
		}
		for _, to := range m.To {
			if mails[to] == nil {
				mails[to] = &strings.Builder{}
			}
			mails[to].WriteString(body)
		}
	}
	seen := map[*tenant]string{}
	webhooks := 0
	for _, tn := range s.tenants {
		all := tn.received() + "\n" + pages[tn].String()
		if m := mails[tn.email]; m != nil {
			all += "\n" + m.String()
		}
		for _, p := range s.push.Pushes() {
			if p.Device == tn.slug {
				all += "\n" + string(p.Plaintext)
			}
		}
		for _, h := range tn.hook.Received() {
			if len(h.Verified) == 0 {
				t.Errorf("a webhook to %s not verified by the reference library: %s", tn.slug, h.ID)
			}
			webhooks++
			all += "\n" + string(h.Body)
		}
		seen[tn] = stripTokens.ReplaceAllString(unescapeJSON(all), " ")
	}
	// A secret's needle that is also a public value (terms someone tabled,
	// anyone's own limits) proves nothing either way: it is skipped.
	own := map[*tenant]map[string]bool{}
	for _, sc := range secrets {
		if own[sc.owner] == nil {
			own[sc.owner] = map[string]bool{}
		}
		for _, n := range append(sc.needles, sc.shown...) {
			own[sc.owner][n] = true
		}
	}
	// The needles must match the service's formatting, or a leak would go
	// unseen: each limit shows on its owner's own room page ("your
	// limits"), in one of its needles or the forms its owner is shown.
	for _, sc := range secrets {
		if !slices.ContainsFunc(append(sc.needles, sc.shown...), func(n string) bool { return found(seen[sc.owner], n) }) {
			t.Errorf("a limit of %s in negotiation %d (%s) is in none of its formats on its owner's pages: its needles %q would miss a leak",
				sc.owner.slug, sc.room, sc.what, sc.needles)
		}
	}
	// The service's own log (River, workers, pages, at debug level) is read
	// by operators: no limit belongs there either.
	logs := measured.ReplaceAllString(unescapeJSON(s.logText()), "")
	checked, skipped, leaks := 0, 0, 0
	for _, sc := range secrets {
		for _, n := range sc.needles {
			if public[n] {
				continue
			}
			checked++
			if found(logs, n) {
				leaks++
				i := strings.Index(logs, n)
				t.Errorf("a limit of %s in negotiation %d (%s) reached the service's log as %q: …%s…", sc.owner.slug, sc.room, sc.what, n,
					logs[max(0, i-120):min(len(logs), i+120)])
			}
		}
		for _, other := range s.tenants {
			if other == sc.owner {
				continue
			}
			for _, n := range sc.needles {
				if public[n] || own[other][n] {
					skipped++
					continue
				}
				checked++
				if found(seen[other], n) {
					leaks++
					i := strings.Index(seen[other], n)
					t.Errorf("a limit of %s in negotiation %d (%s) reached %s as %q: …%s…", sc.owner.slug, sc.room, sc.what, other.slug, n,
						seen[other][max(0, i-120):min(len(seen[other]), i+120)])
				}
			}
		}
	}
	bytesSeen := 0
	for _, v := range seen {
		bytesSeen += len(v)
	}
	t.Logf("limit secrecy (seed %d): %d negotiations in %s, %d limits, %d needle checks against other tenants' %d KiB "+
		"(tool results, errors, pages, %d emails, %d decrypted pushes, %d webhooks) and the service's %d KiB of logs, %d skipped as public, %d leaks; twins: %d, mover told anything else: %d",
		seed, rounds, time.Since(began).Round(time.Millisecond), len(secrets), checked, bytesSeen>>10, len(s.smtp.Mails()), len(s.push.Pushes()), webhooks, len(logs)>>10, skipped, leaks, twins, twinDiffs)
}

// unescapeJSON undoes JSON string escapes a needle could hide behind.
func unescapeJSON(s string) string {
	return strings.NewReplacer(`\u202f`, "\u202f", `\u00a0`, "\u00a0", `\u0026`, "&", `\u003c`, "<", `\u003e`, ">", `\"`, `"`, `\/`, "/").Replace(s)
}

// negotiationScript is one negotiation's moves, replayable: the same seed
// makes the same moves.
type negotiationScript struct {
	a, b   *tenant
	pa, pb *party
	seed   uint64
	public map[string]bool
}

// play runs the negotiation with a declaring limitsA; it returns what b
// was told at each move (normalized) and the room id.
func (ns negotiationScript) play(s *stack, limitsA map[string]any) ([]string, int64) {
	s.t.Helper()
	rng := rand.New(rand.NewPCG(ns.seed, 9))
	a, b := ns.a, ns.b
	var told []string
	note := func(r result) {
		if r.err != "" {
			told = append(told, "error: "+r.err)
			return
		}
		told = append(told, normalizeView(r.out))
	}
	opening := ns.pa.terms(rng, true)
	ns.publish(opening)
	args := map[string]any{"subject_schema": ns.pa.schema(), "subject": opening, "title": "Secrecy"}
	if len(limitsA) > 0 {
		args["limits"] = limitsA
	}
	open := a.must("negotiation_open", args)
	jargs := map[string]any{"invite_code": open.str("invite_code"), "subject_schema": ns.pb.schema()}
	if l := ns.pb.limits(); len(l) > 0 {
		jargs["limits"] = l
	}
	join := b.call("negotiation_join", jargs)
	note(join)
	tb, ta := join.str("room_token"), open.str("room_token")
	roomID := b.roomID(tb)
	for range 2 + rng.IntN(3) {
		// b: a counter outside its own limits now and then (refused, with
		// b's own bound), then one inside.
		if rng.IntN(3) == 0 {
			bad := ns.pb.terms(rng, false)
			ns.publish(bad)
			note(b.call("negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": bad}))
		}
		terms := ns.pb.terms(rng, true)
		ns.publish(terms)
		r := b.call("negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": terms})
		note(r)
		if r.err != "" {
			break
		}
		note(b.call("negotiation_read", map[string]any{"room_token": tb}))
		a.call("negotiation_read", map[string]any{"room_token": ta})
		at := ns.pa.terms(rng, true)
		ns.publish(at)
		if r := a.call("negotiation_propose", map[string]any{"room_token": ta, "verdict": "counter", "subject": at}); r.err != "" {
			break
		}
	}
	v := b.call("negotiation_read", map[string]any{"room_token": tb})
	note(v)
	if h := tableHash(v.out); h != "" && v.out["state"] == "awaiting" {
		r := b.call("negotiation_respond", map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": h})
		note(r)
		if cid := r.str("pending_confirmation", "id"); cid != "" && rng.IntN(2) == 0 {
			if _, err := b.decide(roomID, cid, negotiationHash(h), true); err != nil {
				s.t.Errorf("b's human: %v", err)
			}
			note(b.call("negotiation_read", map[string]any{"room_token": tb}))
		}
	}
	return told, roomID
}

// publish records the needles of values a party put in terms or its own
// limits: seeing them proves nothing.
func (ns negotiationScript) publish(v any) {
	switch x := v.(type) {
	case map[string]any:
		if amt, ok := x["amount"].(string); ok {
			units := strings.ReplaceAll(amt, ".", "")
			ns.public[amt], ns.public[strings.ReplaceAll(amt, ".", ",")], ns.public[strings.TrimLeft(units, "0")] = true, true, true
		}
		for _, y := range x {
			ns.publish(y)
		}
	case []string:
		for _, y := range x {
			ns.publish(y)
		}
	case string:
		ns.public[x] = true
		if t, err := time.Parse(time.DateOnly, x); err == nil {
			for _, n := range dateNeedles(t) {
				ns.public[n] = true
			}
		}
		if t, err := time.Parse(time.RFC3339, x); err == nil {
			for _, n := range append(append(momentNeedles(t), dateNeedles(t)...), dateNeedles(t.UTC())...) {
				ns.public[n] = true
			}
		}
	case int64:
		ns.public[fmt.Sprint(x)] = true
	}
}

var (
	normTimes  = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|Deadline: [^)]*\)`)
	normTokens = regexp.MustCompile(`(?:rt|cf)_[A-Za-z0-9_-]+`)
	// The no-deal note is shared with both sides by design, and whether a
	// schema is new depends on what b's human confirmed before.
	normNoDeal = regexp.MustCompile(`,"no_deal_possible":\[[^\]]*\]|No deal is possible on [^)]*\)\.( |\\n)?| — no deal possible on this field|` +
		`The other side uses a form you have not agreed under before: check each field\.(\\n)?`)
)

// normalizeView is a view without what differs between two plays of one
// script: tokens, ids, times, and the no-deal note.
func normalizeView(out map[string]any) string {
	b, _ := jsonMarshal(out)
	s := normTokens.ReplaceAllString(string(b), "TOKEN")
	s = normTimes.ReplaceAllString(s, "TIME")
	return normNoDeal.ReplaceAllString(s, "")
}

func sameAnswers(x, y []string) string {
	if len(x) != len(y) {
		return fmt.Sprintf("%d answers, then %d", len(x), len(y))
	}
	for i := range x {
		if x[i] != y[i] {
			j := 0
			for j < len(x[i]) && j < len(y[i]) && x[i][j] == y[i][j] {
				j++
			}
			from := max(0, j-80)
			return fmt.Sprintf("answer %d differs at byte %d: …%s…\nthen: …%s…", i, j, x[i][from:min(len(x[i]), j+120)], y[i][from:min(len(y[i]), j+120)])
		}
	}
	return ""
}

func negotiationHash(h string) negotiation.SubjectHash { return negotiation.SubjectHash(h) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
