package negotiation

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

const withheldSchema = `{"fee":{"type":"money","label":"Fee","currency":"EUR"},"n":{"type":"int","label":"N"},"day":{"type":"date","label":"Day"}}`

// joinedWith is a room opened with limits a and joined with limits b.
func joinedWith(t *testing.T, a, b string) *Room {
	t.Helper()
	r, _, _, err := Open(OpenRequest{Schema: json.RawMessage(withheldSchema), Limits: json.RawMessage(a)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	j, _, err := r.Join(json.RawMessage(withheldSchema), json.RawMessage(b), t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// markOf stands for the service's keyed mark (an HMAC of the LimitText).
func markOf(text []byte) []byte {
	m := hmac.New(sha256.New, []byte("test key"))
	m.Write(text)
	return m.Sum(nil)
}

// meet plays the rule over rooms between two accounts as the service
// does: each room's marks are passed with the earlier rooms', and kept
// with whether each verdict was told. It returns each room's NoDeal.
func meet(t *testing.T, rooms [][2]string) [][]string {
	t.Helper()
	var kept []NoDealMark
	var out [][]string
	for _, lims := range rooms {
		r := joinedWith(t, lims[0], lims[1])
		var now []FieldMarks
		for _, f := range r.NoDealFields() {
			now = append(now, FieldMarks{Key: f.Key, Marks: [2][][]byte{{markOf(f.Limits[0])}, {markOf(f.Limits[1])}}})
		}
		withheld := WithheldNoDeal(now, kept)
		r.WithholdNoDeal(withheld)
		for _, f := range now {
			kept = append(kept, NoDealMark{Key: f.Key, Marks: [2][]byte{f.Marks[0][0], f.Marks[1][0]}, Told: !slices.Contains(withheld, f.Key)})
		}
		out = append(out, r.NoDeal)
	}
	return out
}

func fee(bound, amount string) string {
	return `{"fee":{"` + bound + `":{"amount":"` + amount + `","currency":"EUR"}}}`
}

func TestWithheldNoDeal(t *testing.T) {
	v := fee("max", "731.40") // the victim's, the same in every room
	for _, c := range []struct {
		name  string
		rooms [][2]string
		want  [][]string
	}{
		{"first room is told", [][2]string{{fee("min", "800.00"), v}}, [][]string{{"fee"}}},
		{"one side moved: withheld", [][2]string{{fee("min", "500.00"), v}, {fee("min", "800.00"), v}, {fee("min", "731.41"), v}},
			[][]string{nil, nil, nil}},
		{"the other way round", [][2]string{{v, fee("min", "500.00")}, {v, fee("min", "800.00")}}, [][]string{nil, nil}},
		{"both as before: told", [][2]string{{fee("min", "800.00"), v}, {fee("min", "800"), v}}, [][]string{{"fee"}, {"fee"}}},
		{"both moved: told", [][2]string{{fee("min", "100.00"), v}, {fee("min", "800.00"), fee("max", "700.00")}},
			[][]string{nil, {"fee"}}},
		// Declaring in the next room the bound a room withheld does not
		// tell it: the pair was never told together.
		{"withheld pair asked again", [][2]string{{fee("min", "500.00"), v}, {fee("min", "800.00"), v}, {fee("min", "800.00"), v}},
			[][]string{nil, nil, nil}},
		// A bound laid down while withheld is not a key to the victim's
		// next limit.
		{"old bound against a new limit", [][2]string{{fee("min", "500.00"), v}, {fee("min", "800.00"), v},
			{fee("min", "900.00"), fee("max", "750.00")}, {fee("min", "800.00"), fee("max", "750.00")}},
			[][]string{nil, nil, {"fee"}, nil}},
		// No limit is a limit too: a prober who declared none first still
		// moves when it declares one.
		{"from no limit", [][2]string{{`{}`, v}, {fee("min", "800.00"), v}}, [][]string{nil, nil}},
		// Back to the limits of a room whose verdict was told: that verdict
		// again, whatever a room in between withheld.
		{"back to a pair told together", [][2]string{{fee("min", "800.00"), v}, {fee("min", "500.00"), v}, {fee("min", "800.00"), v}},
			[][]string{{"fee"}, nil, {"fee"}}},
		{"back to a pair told together, the other way round", [][2]string{{v, fee("min", "800.00")}, {v, fee("min", "500.00")}, {v, fee("min", "800.00")}},
			[][]string{{"fee"}, nil, {"fee"}}},
		{"withheld pair asked again, the other way round", [][2]string{{v, fee("min", "500.00")}, {v, fee("min", "800.00")}, {v, fee("min", "800.00")}},
			[][]string{nil, nil, nil}},
		{"another field is its own", [][2]string{{`{"n":{"min":40}}`, `{"n":{"max":37}}`}, {fee("min", "800.00"), v}},
			[][]string{{"n"}, {"fee"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := meet(t, c.rooms)
			for i := range got {
				if !slices.Equal(got[i], c.want[i]) {
					t.Errorf("room %d: no_deal_possible %v, want %v", i+1, got[i], c.want[i])
				}
			}
		})
	}
}

// TestNoDealFields: a join keeps marks of the fields both schemas hold
// (same name and type) that either side limits, and of no other; a room
// nobody joined has none.
func TestNoDealFields(t *testing.T) {
	schemaA := `{"fee":{"type":"money","label":"Fee","currency":"EUR"},"n":{"type":"int","label":"N"},"x":{"type":"int","label":"X"},"m":{"type":"int","label":"M"}}`
	schemaB := `{"fee":{"type":"money","label":"Fee","currency":"EUR"},"n":{"type":"date","label":"N"},"x":{"type":"int","label":"X"},"m":{"type":"int","label":"M"}}`
	r, _, _, err := Open(OpenRequest{Schema: json.RawMessage(schemaA), Limits: json.RawMessage(`{"fee":{"max":{"amount":"10","currency":"EUR"}},"n":{"min":1}}`)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.NoDealFields(); got != nil {
		t.Errorf("before the join: %v", got)
	}
	j, _, err := r.Join(json.RawMessage(schemaB), json.RawMessage(`{"n":{"min":"2026-01-01"},"m":{"max":3}}`), t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range j.NoDealFields() {
		keys = append(keys, f.Key)
	}
	if want := []string{"fee:money", "m:int"}; !slices.Equal(keys, want) {
		t.Errorf("fields marked %v, want %v (n is of two types, x limited by nobody)", keys, want)
	}
}

func TestLimitTextIsSame(t *testing.T) {
	s, _, err := ParseSchema(json.RawMessage(`{"fee":{"type":"money","label":"Fee"},"p":{"type":"enum","label":"P","values":["x","y","z"]},"t":{"type":"timerange","label":"T"}}`))
	if err != nil {
		t.Fatal(err)
	}
	text := func(lim string) string {
		l, err := s.ParseLimits([]byte(lim))
		if err != nil {
			t.Fatal(err)
		}
		var out string
		for _, f := range s.Fields() {
			x, _ := l.Get(f.Name)
			out += string(LimitText(f, x)) + "|"
		}
		return out
	}
	same := [][2]string{
		{`{"fee":{"max":{"amount":"100","currency":"EUR"}}}`, `{"fee":{"max":{"amount":"100.00","currency":"EUR"}}}`},
		{`{"p":{"one_of":["y","x"]}}`, `{"p":{"one_of":["x","y"]}}`},
		{`{"t":{"min":"2026-12-03T10:00:00+01:00"}}`, `{"t":{"min":"2026-12-03T09:00:00Z"}}`},
	}
	for _, c := range same {
		if text(c[0]) != text(c[1]) {
			t.Errorf("%s and %s: texts differ", c[0], c[1])
		}
	}
	other := [][2]string{
		{`{"fee":{"max":{"amount":"100","currency":"EUR"}}}`, `{"fee":{"max":{"amount":"100","currency":"USD"}}}`},
		{`{"fee":{"max":{"amount":"100","currency":"EUR"}}}`, `{"fee":{"min":{"amount":"100","currency":"EUR"}}}`},
		{`{"p":{"one_of":["x"]}}`, `{"p":{"one_of":["x","y"]}}`},
		{`{}`, `{"fee":{"max":{"amount":"100","currency":"EUR"}}}`},
	}
	for _, c := range other {
		if text(c[0]) == text(c[1]) {
			t.Errorf("%s and %s: the same text", c[0], c[1])
		}
	}
}

// TestWithheldNoDealMarks: the rule over marks as the service passes them,
// some earlier rooms' marks already purged (NoDealMarksKept): each earlier
// room counts, not only the latest, and a side as before against a side
// moved is withheld even when no earlier verdict is left that was told.
func TestWithheldNoDealMarks(t *testing.T) {
	m := func(s string) []byte { return []byte(s) }
	was := func(a, b string, told bool) NoDealMark {
		return NoDealMark{Key: "fee:money", Marks: [2][]byte{m(a), m(b)}, Told: told}
	}
	for _, c := range []struct {
		name     string
		before   []NoDealMark
		withheld bool
	}{
		{"first room", nil, false},
		{"one side as in a room withheld, the told one purged", []NoDealMark{was("A0", "B", false)}, true},
		{"the other side so", []NoDealMark{was("A", "B0", false)}, true},
		{"told together, then both moved", []NoDealMark{was("A", "B", true), was("A2", "B2", true)}, false},
		{"a told with another, then an unrelated room, then the pair withheld",
			[]NoDealMark{was("A", "X", true), was("Z", "W", true), was("A", "B", false)}, true},
		{"b told with another, then an unrelated room, then the pair withheld",
			[]NoDealMark{was("X", "B", true), was("Z", "W", true), was("A", "B", false)}, true},
		{"another field's marks", []NoDealMark{{Key: "n:int", Marks: [2][]byte{m("A"), m("B0")}, Told: true}}, false},
	} {
		now := []FieldMarks{{Key: "fee:money", Marks: [2][][]byte{{m("A")}, {m("B")}}}}
		got := WithheldNoDeal(now, c.before)
		if (len(got) == 1) != c.withheld {
			t.Errorf("%s: withheld %v, want %v", c.name, got, c.withheld)
		}
	}
}

// TestWithholdNoDealFields: a field named that NoDeal does not list (a
// stored room's withheld field its replay no longer finds) changes
// nothing; withholding every listed field leaves no NoDeal.
func TestWithholdNoDealFields(t *testing.T) {
	r := joinedWith(t, `{"fee":{"min":{"amount":"800","currency":"EUR"}},"n":{"min":40}}`, `{"fee":{"max":{"amount":"700","currency":"EUR"}},"n":{"max":37}}`)
	if !slices.Equal(r.NoDeal, []string{"fee", "n"}) {
		t.Fatalf("NoDeal %v", r.NoDeal)
	}
	r.WithholdNoDealFields([]string{"day"})
	if !slices.Equal(r.NoDeal, []string{"fee", "n"}) || r.NoDealWithheld != nil {
		t.Errorf("a field not listed withheld: NoDeal %v, withheld %v", r.NoDeal, r.NoDealWithheld)
	}
	r.WithholdNoDealFields([]string{"n", "fee"})
	if r.NoDeal != nil || !slices.Equal(r.NoDealWithheld, []string{"n", "fee"}) {
		t.Errorf("all withheld: NoDeal %#v, withheld %v", r.NoDeal, r.NoDealWithheld)
	}
}
