package negotiation

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPace(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	r := &Room{State: StateAwaiting, Turn: SideA, Round: 3, Table: &Table{By: SideB, Round: 3}, Deadline: t0.Add(DefaultDeadline)}
	p := Pace{MaxRounds: 4, Cooldown: 1500 * time.Millisecond}
	cases := []struct {
		v        Verdict
		last, at time.Time
		round    int
		want     string
	}{
		{VerdictCounter, time.Time{}, t0, 3, ""},
		{VerdictCounter, t0, t0.Add(time.Second), 3, "too soon for another counter: the next is allowed from 2026-12-01T09:00:02Z"},
		{VerdictCounter, t0, t0.Add(1999 * time.Millisecond), 3, "too soon for another counter: the next is allowed from 2026-12-01T09:00:02Z"},
		{VerdictCounter, t0, t0.Add(2 * time.Second), 3, ""}, // rounded up to the second shown
		{VerdictNeedMoreDetail, t0, t0, 3, ""}, // only counters cool down
		{VerdictApprove, t0, t0, 4, ""},        // the cap leaves approve
		{VerdictCounter, time.Time{}, t0, 4, "this room reached its cap of 4 rounds: approve, reject or cancel"},
		{VerdictNeedMoreDetail, time.Time{}, t0, 4, "this room reached its cap of 4 rounds: approve, reject or cancel"},
	}
	for i, c := range cases {
		rr := *r
		rr.Round = c.round
		err := p.Check(&rr, SideA, c.v, c.last, c.at)
		got := ""
		if err != nil {
			got = err.Error()
			if e, ok := err.(*Error); !ok || e.Code != CodeRefused {
				t.Errorf("case %d: %T %v, want a refusal", i, err, err)
			}
		}
		if got != c.want {
			t.Errorf("case %d: %q, want %q", i, got, c.want)
		}
	}
	one := Pace{MaxRounds: 1}
	if err := one.Check(&Room{Round: 1}, SideA, VerdictCounter, time.Time{}, t0); err == nil || err.Error() != "this room reached its cap of 1 round: approve, reject or cancel" {
		t.Errorf("a cap of one round: %v", err)
	}
	if err := (Pace{}).Check(&Room{Round: 1 << 20}, SideA, VerdictCounter, t0, t0); err != nil {
		t.Errorf("the zero Pace refused: %v", err)
	}
	// Without a cool-down, a node whose clock reads before the side's last
	// counter still takes the next one.
	if err := (Pace{}).Check(&Room{Round: 2}, SideA, VerdictCounter, t0, t0.Add(-time.Second)); err != nil {
		t.Errorf("the zero Pace refused a counter on a clock behind: %v", err)
	}
	n, at := p.Next(r, SideA, t0, t0.Add(time.Second))
	if at == nil || !at.Equal(t0.Add(2*time.Second)) || slices.Contains(n.Verdicts, VerdictCounter) ||
		!strings.HasSuffix(n.Say, " You may counter again from 2026-12-01T09:00:02Z.") {
		t.Errorf("Next in the cool-down: %v %v", n, at)
	}
	// A room due to close takes nothing more, and says why.
	draft := &Room{State: StateDraft, ExpiresAt: t0.Add(time.Hour), Deadline: t0.Add(DefaultDeadline)}
	lapsed := *r
	for _, c := range []struct {
		r    *Room
		want string
	}{
		{draft, "The invitation has expired: the room is closing (" + string(ClosedExpired) + ")"},
		{&lapsed, "The deadline has passed: the room is closing (" + string(ClosedLapsed) + ")"},
	} {
		n, at := p.Next(c.r, SideA, time.Time{}, t0.Add(DefaultDeadline))
		if at != nil || len(n.Verdicts) != 0 || !strings.HasPrefix(n.Say, c.want) {
			t.Errorf("Next of a room due to close: %v %v, want no verdict, saying %q", n, at, c.want)
		}
	}
	capped := *r
	capped.Round = 4
	n, at = p.Next(&capped, SideA, time.Time{}, t0)
	if at != nil || !slices.Equal(n.Verdicts, []Verdict{VerdictApprove, VerdictReject, VerdictCancel}) {
		t.Errorf("Next at the cap: %v %v", n, at)
	}
	events := []Event{{Kind: EventPropose, Side: SideA, Verdict: VerdictOffer, At: t0},
		{Kind: EventPropose, Side: SideB, Verdict: VerdictCounter, At: t0.Add(time.Minute)},
		{Kind: EventPropose, Side: SideA, Verdict: VerdictNeedMoreDetail, At: t0.Add(2 * time.Minute)}}
	if got := LastTabled(events, SideA); !got.Equal(t0) {
		t.Errorf("LastTabled: %v", got)
	}
}

func TestDeceptive(t *testing.T) {
	for _, c := range []struct {
		schema, want string
	}{
		{`{"fee":{"type":"int","label":"Fee"}}`, ""},
		{`{"fee":{"type":"int","label":"Plată în lei"}}`, ""},
		{`{"fee":{"type":"int","label":"Сумма"}}`, ""},
		{`{"fee":{"type":"int","label":"Fee (€) 👩‍💻"}}`, ""},
		{`{"fee":{"type":"int","label":"Fее"}}`, `fee: label mixes scripts in one word ("Fее"): write each word in one script`},
		{`{"fee":{"type":"int","label":"Fe\u200be"}}`, "fee: label holds an invisible character (U+200B)"},
		{`{"a":{"type":"int","label":"Top"},"b":{"type":"int","label":"Тор"}}`, "b: its label looks like the label of a; a person could not tell them apart"},
		{`{"a":{"type":"enum","label":"A","values":["ye","уе"]}}`, `a: values "ye" and "уе" look alike; a person could not tell them apart`},
		// A line or paragraph separator breaks the one line an email shows.
		{`{"fee":{"type":"int","label":"Fee\u2028Total"}}`, "fee: label breaks the line (U+2028): write one line"},
		{`{"fee":{"type":"int","label":"Fee\u2029Total"}}`, "fee: label breaks the line (U+2029): write one line"},
		// A combining mark is part of its word: scripts mixed across it still mix.
		{`{"fee":{"type":"int","label":"Fe\u0301е"}}`, "fee: label mixes scripts in one word (\"Fe\u0301е\"): write each word in one script"},
		// Fullwidth forms read as their ASCII letters and signs, from ！ to ～.
		{`{"a":{"type":"int","label":"Fee"},"b":{"type":"int","label":"Ｆｅｅ"}}`, "b: its label looks like the label of a; a person could not tell them apart"},
		{`{"a":{"type":"enum","label":"A","values":["Go!","Go！"]}}`, `a: values "Go!" and "Go！" look alike; a person could not tell them apart`},
		{`{"a":{"type":"enum","label":"A","values":["a~b","a～b"]}}`, `a: values "a~b" and "a～b" look alike; a person could not tell them apart`},
	} {
		s, _, err := ParseSchema([]byte(c.schema))
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		got := ""
		if err := s.CheckDeceptive(); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.schema, got, c.want)
		}
	}
	if !ReadableLine("Kick-off") || ReadableLine("Kick\noff") || ReadableLine("a\u202eb") {
		t.Error("ReadableLine")
	}
	// Past the first non-ASCII letter, a tab or line break still breaks the one line.
	for _, s := range []string{"Café\tBar", "Préis\nTotal", "Größe\r"} {
		if ReadableLine(s) {
			t.Errorf("ReadableLine(%q)", s)
		}
	}
	if !ReadableLine("Größe (€)") {
		t.Error(`ReadableLine("Größe (€)")`)
	}
}

// TestDeceptiveFolded: with a door's Unicode normalization, two labels or
// values that are one text in two Unicode forms are refused as that, and
// two that only look alike are still refused as looking alike.
func TestDeceptiveFolded(t *testing.T) {
	compose := func(s string) string { return strings.ReplaceAll(s, "e\u0301", "é") } // stands for NFKC here
	for _, c := range []struct {
		schema, want string
	}{
		{`{"a":{"type":"enum","label":"A","values":["Café","Cafe\u0301"]}}`, `a: values "Caf\u00e9" and "Cafe\u0301" are the same text written in two Unicode forms; write both in one (NFC)`},
		{`{"a":{"type":"int","label":"Café"},"b":{"type":"int","label":"Cafe\u0301"}}`, `b: its label and the label of a: "Caf\u00e9" and "Cafe\u0301" are the same text written in two Unicode forms; write both in one (NFC)`},
		{`{"a":{"type":"enum","label":"A","values":["ye","уе"]}}`, `a: values "ye" and "уе" look alike; a person could not tell them apart`},
		{`{"a":{"type":"int","label":"Top"},"b":{"type":"int","label":"Тор"}}`, "b: its label looks like the label of a; a person could not tell them apart"},
		{`{"a":{"type":"enum","label":"A","values":["Café","Cafe"]}}`, ""},
	} {
		s, _, err := ParseSchema([]byte(c.schema))
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		got := ""
		if err := s.CheckDeceptiveFolded(compose); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.schema, got, c.want)
		}
	}
}

// TestEnglishCountsOfOne: an English refusal counting one thing says it in
// the singular (the catalogs have each language's plural rules).
func TestEnglishCountsOfOne(t *testing.T) {
	s, _, err := ParseSchema([]byte(`{"initial":{"type":"string","label":"Initial","max_len":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ParseTerms([]byte(`{"initial":"AB"}`)); err == nil || err.Error() != "initial: at most 1 character" {
		t.Errorf("max_len 1: %v", err)
	}
}
