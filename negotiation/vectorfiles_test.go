package negotiation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/golden"
)

// TestEveryVectorFileRuns keeps a vector file from being added without a
// test that plays it.
func TestEveryVectorFileRuns(t *testing.T) {
	played := []string{"moves.json", "hash.json", "schemas.json", "terms.json", "limits.json", "rooms.json", "titles.json", "chain.json"}
	files, err := filepath.Glob(filepath.Join("..", "vectors", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("../vectors/*.json matches no file: the vectors are not where the test looks")
	}
	for _, f := range files {
		if !slices.Contains(played, filepath.Base(f)) {
			t.Errorf("vectors/%s has no test that plays it", filepath.Base(f))
		}
	}
}

func mustSchema(t *testing.T, raw json.RawMessage) *Schema {
	t.Helper()
	s, _, err := ParseSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	refusals.note(err)
	return err.Error()
}

func TestSchemaVectors(t *testing.T) {
	var f struct {
		Description string `json:"description"`
		Cases       []struct {
			Name     string          `json:"name"`
			Schema   json.RawMessage `json:"schema"`
			Error    string          `json:"error"`
			Warnings []string        `json:"warnings"`
		} `json:"cases"`
	}
	readVector(t, "schemas.json", &f)
	for _, c := range f.Cases {
		s, warnings, err := ParseSchema(c.Schema)
		if errText(err) != c.Error {
			t.Errorf("%s: error %q, want %q", c.Name, errText(err), c.Error)
			continue
		}
		if err != nil {
			if e := err.(*Error); e.Code != CodeInvalidSchema {
				t.Errorf("%s: code %s", c.Name, e.Code)
			}
			continue
		}
		if !slices.Equal(warnings, c.Warnings) {
			t.Errorf("%s: warnings %q, want %q", c.Name, warnings, c.Warnings)
		}
		again, _, err := ParseSchema(s.Canonical())
		if err != nil || !bytes.Equal(again.Canonical(), s.Canonical()) {
			t.Errorf("%s: the canonical schema does not reparse to itself: %v", c.Name, err)
		}
	}
}

func TestTermsVectors(t *testing.T) {
	var f struct {
		Description string                     `json:"description"`
		Schemas     map[string]json.RawMessage `json:"schemas"`
		Cases       []struct {
			Name   string          `json:"name"`
			Schema string          `json:"schema"`
			Terms  json.RawMessage `json:"terms"`
			Raw    string          `json:"raw"`
			Latin1 bool            `json:"latin1"`
			Error  string          `json:"error"`
		} `json:"cases"`
	}
	readVector(t, "terms.json", &f)
	type out struct {
		Name        string      `json:"name"`
		Canonical   string      `json:"canonical"`
		SubjectHash SubjectHash `json:"subject_hash"`
	}
	var produced []out
	for _, c := range f.Cases {
		s := mustSchema(t, f.Schemas[c.Schema])
		data := []byte(c.Terms)
		if c.Raw != "" {
			data = []byte(c.Raw)
			if c.Latin1 {
				data = data[:0:0]
				for _, r := range c.Raw {
					data = append(data, byte(r))
				}
			}
		}
		sameAsTree(t, s, data)
		terms, err := s.ParseTerms(data)
		if errText(err) != c.Error {
			t.Errorf("%s: error %q, want %q", c.Name, errText(err), c.Error)
			continue
		}
		if err == nil {
			produced = append(produced, out{c.Name, string(terms.Canonical()), terms.Hash()})
		}
	}
	golden.JSON(t, "terms.golden.json", produced)
}

func TestLimitsVectors(t *testing.T) {
	var f struct {
		Description string                     `json:"description"`
		Schemas     map[string]json.RawMessage `json:"schemas"`
		Parse       []struct {
			Name   string          `json:"name"`
			Schema string          `json:"schema"`
			Limits json.RawMessage `json:"limits"`
			Error  string          `json:"error"`
		} `json:"parse"`
		Own []struct {
			Name   string          `json:"name"`
			Schema string          `json:"schema"`
			Limits json.RawMessage `json:"limits"`
			Terms  json.RawMessage `json:"terms"`
			Error  string          `json:"error"`
		} `json:"own"`
		Across []struct {
			Name     string          `json:"name"`
			Mine     string          `json:"mine"`
			MyLimits json.RawMessage `json:"my_limits"`
			Theirs   string          `json:"theirs"`
			Terms    json.RawMessage `json:"terms"`
			Outside  []Breach        `json:"outside"`
		} `json:"across"`
		NoDeal []struct {
			Name    string          `json:"name"`
			A       string          `json:"a"`
			ALimits json.RawMessage `json:"a_limits"`
			B       string          `json:"b"`
			BLimits json.RawMessage `json:"b_limits"`
			NoDeal  []string        `json:"no_deal"`
		} `json:"no_deal"`
	}
	readVector(t, "limits.json", &f)
	schema := func(name string) *Schema { return mustSchema(t, f.Schemas[name]) }
	limits := func(s *Schema, raw json.RawMessage) *Limits {
		l, err := s.ParseLimits(raw)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, c := range f.Parse {
		_, err := schema(c.Schema).ParseLimits(c.Limits)
		if errText(err) != c.Error {
			t.Errorf("parse %s: error %q, want %q", c.Name, errText(err), c.Error)
		}
		if e, ok := err.(*Error); ok && e.Code != CodeInvalidLimits {
			t.Errorf("parse %s: code %s", c.Name, e.Code)
		}
	}
	for _, c := range f.Own {
		s := schema(c.Schema)
		terms, err := s.ParseTerms(c.Terms)
		if err != nil {
			t.Fatalf("own %s: %v", c.Name, err)
		}
		if err := limits(s, c.Limits).CheckOwn(terms); errText(err) != c.Error {
			t.Errorf("own %s: error %q, want %q", c.Name, errText(err), c.Error)
		}
	}
	for _, c := range f.Across {
		mine, theirs := schema(c.Mine), schema(c.Theirs)
		terms, err := theirs.ParseTerms(c.Terms)
		if err != nil {
			t.Fatalf("across %s: %v", c.Name, err)
		}
		got := OutsideLimits(mine, limits(mine, c.MyLimits), theirs, terms)
		if len(got) != 0 || len(c.Outside) != 0 {
			if !reflect.DeepEqual(got, c.Outside) {
				t.Errorf("across %s: outside %v, want %v", c.Name, got, c.Outside)
			}
		}
	}
	for _, c := range f.NoDeal {
		a, b := schema(c.A), schema(c.B)
		got := NoDealPossible(a, limits(a, c.ALimits), b, limits(b, c.BLimits))
		if !slices.Equal(got, c.NoDeal) && (len(got) > 0 || len(c.NoDeal) > 0) {
			t.Errorf("no_deal %s: %v, want %v", c.Name, got, c.NoDeal)
		}
		// It is symmetric: both parties are told the same.
		if back := NoDealPossible(b, limits(b, c.BLimits), a, limits(a, c.ALimits)); !slices.Equal(back, got) {
			t.Errorf("no_deal %s: not symmetric: %v and %v", c.Name, got, back)
		}
	}
}

type roomWant struct {
	State        State        `json:"state"`
	ClosedReason ClosedReason `json:"closed_reason"`
	Round        *int         `json:"round"`
	Turn         *Side        `json:"turn"`
	Options      *int         `json:"options"`
	Pending      []Side       `json:"pending"`
	Preapproved  *bool        `json:"preapproved"`
	NoDeal       []string     `json:"no_deal"`
}

func (w *roomWant) check(t *testing.T, where string, r *Room) {
	t.Helper()
	if w == nil {
		return
	}
	fail := func(what string, got, want any) { t.Errorf("%s: %s %v, want %v", where, what, got, want) }
	if w.State != "" && r.State != w.State {
		fail("state", r.State, w.State)
	}
	if r.ClosedReason != w.ClosedReason && (w.ClosedReason != "" || w.State != "") {
		fail("closed_reason", r.ClosedReason, w.ClosedReason)
	}
	if w.Round != nil && r.Round != *w.Round {
		fail("round", r.Round, *w.Round)
	}
	if w.Turn != nil && r.Turn != *w.Turn {
		fail("turn", r.Turn, *w.Turn)
	}
	if w.Options != nil && (r.Table == nil || len(r.Table.Options) != *w.Options) {
		fail("options on the table", r.Table, *w.Options)
	}
	if w.Pending != nil {
		var got []Side
		for _, s := range []Side{SideA, SideB} {
			if r.PendingFor(s) != nil {
				got = append(got, s)
			}
		}
		if !slices.Equal(got, w.Pending) {
			fail("pending", got, w.Pending)
		}
	}
	if w.Preapproved != nil && r.Preapproved != *w.Preapproved {
		fail("preapproved", r.Preapproved, *w.Preapproved)
	}
	if w.NoDeal != nil && !slices.Equal(r.NoDeal, w.NoDeal) {
		fail("no_deal", r.NoDeal, w.NoDeal)
	}
}

// UnmarshalJSON lets "turn": null mean "nobody's turn".
func (w *roomWant) UnmarshalJSON(b []byte) error {
	type plain roomWant
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(b, &raw)
	if v, ok := raw["turn"]; ok && string(v) == "null" {
		none := Side("")
		p.Turn = &none
	}
	*w = roomWant(p)
	return nil
}

func offset(now time.Time, s string) time.Time {
	d, err := time.ParseDuration(strings.TrimPrefix(s, "+"))
	if err != nil {
		panic(err)
	}
	return now.Add(d)
}

func TestRoomVectors(t *testing.T) {
	var f struct {
		Description string                     `json:"description"`
		Now         time.Time                  `json:"now"`
		Schemas     map[string]json.RawMessage `json:"schemas"`
		Slots       []json.RawMessage          `json:"slots"`
		Cases       []struct {
			Name string `json:"name"`
			Open struct {
				Schema     string            `json:"schema"`
				Slots      bool              `json:"slots"`
				Subject    json.RawMessage   `json:"subject"`
				Options    []json.RawMessage `json:"options"`
				Preapprove bool              `json:"preapprove"`
				Deadline   string            `json:"deadline"`
				Limits     json.RawMessage   `json:"limits"`
			} `json:"open"`
			OpenRefused string    `json:"open_refused"`
			Room        *roomWant `json:"room"`
			Steps       []struct {
				At    string `json:"at"`
				Actor Side   `json:"actor"`
				Join  *struct {
					Schema string          `json:"schema"`
					Limits json.RawMessage `json:"limits"`
				} `json:"join"`
				Propose Verdict           `json:"propose"`
				Subject json.RawMessage   `json:"subject"`
				Options []json.RawMessage `json:"options"`
				Fields  []string          `json:"fields"`
				Request Verdict           `json:"request"`
				Agent   bool              `json:"agent"`
				Answer  Verdict           `json:"answer"`
				Invited bool              `json:"invitation"`
				Option  *int              `json:"option"`
				Hash    SubjectHash       `json:"hash"`
				Decide  *bool             `json:"decide"`
				Outcome Result            `json:"outcome"`
				Why     string            `json:"why"`
				Close   bool              `json:"close"`
				Deleted bool              `json:"account_deleted"`
				Refused string            `json:"refused"`
				Room    *roomWant         `json:"room"`
				Card    Side              `json:"card"`
			} `json:"steps"`
		} `json:"cases"`
	}
	readVector(t, "rooms.json", &f)
	type cardOut struct {
		Case string `json:"case"`
		Step int    `json:"step"`
		Card *Card  `json:"card"`
	}
	var cards []cardOut
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			at := f.Now
			req := OpenRequest{Schema: f.Schemas[c.Open.Schema], Subject: c.Open.Subject, Options: c.Open.Options,
				Preapprove: c.Open.Preapprove, Limits: c.Open.Limits, PreapprovalID: "preapproval"}
			if c.Open.Slots {
				req.Slots = f.Slots
			}
			if c.Open.Deadline != "" {
				d := offset(f.Now, c.Open.Deadline)
				req.Deadline = &d
			}
			r, events, _, err := Open(req, at)
			if errText(err) != c.OpenRefused {
				t.Fatalf("open: error %q, want %q", errText(err), c.OpenRefused)
			}
			if err != nil {
				return
			}
			c.Room.check(t, "open", r)
			limits := [2][]byte{c.Open.Limits}
			ids := map[Side]string{SideA: "preapproval"}
			for i, st := range c.Steps {
				at = at.Add(time.Minute)
				if st.At != "" {
					at = offset(f.Now, st.At)
				}
				where := fmt.Sprintf("step %d", i)
				before := r.Snapshot()
				var next *Room
				var ev Event
				var why string
				var err error
				switch {
				case st.Join != nil:
					next, ev, err = r.Join(f.Schemas[st.Join.Schema], st.Join.Limits, at)
					if err == nil {
						limits[1] = st.Join.Limits
					}
				case st.Propose != "":
					next, ev, err = r.Propose(st.Actor, Move{Verdict: st.Propose, Subject: st.Subject, Options: st.Options, Fields: st.Fields}, at)
				case st.Request == VerdictPreapprove && !st.Agent:
					id := fmt.Sprintf("c%d", i)
					next, ev, err = r.RequestPreapproval(st.Actor, id, at, Announced)
					if err == nil {
						ids[st.Actor] = id
					}
				case st.Request != "":
					hash := st.Hash
					if st.Option != nil {
						hash = r.Table.Options[*st.Option].Hash()
					}
					id := fmt.Sprintf("c%d", i)
					next, ev, err = r.Request(st.Actor, st.Request, hash, id, at, Announced)
					if err == nil {
						ids[st.Actor] = id
					}
				case st.Answer != "":
					ans := Answer{Verdict: st.Answer, Hash: st.Hash, Terms: st.Subject}
					if st.Option != nil {
						ans.Hash = r.Table.Options[*st.Option].Hash()
					}
					var evs []Event
					if st.Invited {
						next, evs, err = r.AnswerInvitation(ans, fmt.Sprintf("c%d", i), at)
					} else {
						next, evs, err = r.Answer(st.Actor, ans, fmt.Sprintf("c%d", i), at)
					}
					if err == nil {
						events = append(events, evs[:len(evs)-1]...)
						ev = evs[len(evs)-1]
					}
				case st.Decide != nil:
					// The human saw the pending confirmation's terms, unless
					// the step says which (option or hash).
					seen := st.Hash
					if p := r.PendingFor(st.Actor); st.Hash == "" && st.Option == nil && p != nil {
						seen = p.SubjectHash
					}
					if st.Option != nil {
						seen = r.Table.Options[*st.Option].Hash()
					}
					next, ev, why, err = r.Decide(st.Actor, ids[st.Actor], seen, *st.Decide, at)
					if err == nil && (ev.Outcome != st.Outcome || why != st.Why) {
						t.Errorf("%s: outcome %s (%q), want %s (%q)", where, ev.Outcome, why, st.Outcome, st.Why)
					}
				case st.Close:
					next, ev, err = r.CloseDue(at)
				case st.Deleted:
					next, ev, err = r.CloseAccountDeleted(at)
				default:
					t.Fatalf("%s: nothing to do", where)
				}
				if errText(err) != st.Refused {
					t.Fatalf("%s: error %q, want %q", where, errText(err), st.Refused)
				}
				if err != nil {
					if !bytes.Equal(before, r.Snapshot()) {
						t.Fatalf("%s: a refusal changed the room", where)
					}
					continue
				}
				r = next
				events = append(events, ev)
				st.Room.check(t, where, r)
				if st.Card != "" {
					cards = append(cards, cardOut{c.Name, i, r.Card(st.Card, false, time.FixedZone("CEST", 2*3600))})
				}
				// The log replays to the same room, and the snapshot restores it.
				replayed, err := Replay(events, limits)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				if !bytes.Equal(replayed.Snapshot(), r.Snapshot()) {
					t.Fatalf("%s: replay differs\n got %s\nwant %s", where, replayed.Snapshot(), r.Snapshot())
				}
				restored, err := Restore(r.Snapshot(), limits)
				if err != nil || !bytes.Equal(restored.Snapshot(), r.Snapshot()) {
					t.Fatalf("%s: restore differs: %v", where, err)
				}
			}
		})
	}
	golden.JSON(t, "cards.golden.json", cards)
}
