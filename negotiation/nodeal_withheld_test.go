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
