package negotiation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestProposeRefusals(t *testing.T) {
	p := openPlay(t, OpenRequest{Subject: qty1, Limits: []byte(`{"qty":{"max":10}}`)})
	p.join(qtySchema, []byte(`{"qty":{"min":2}}`))
	r := p.r // b's turn, qty 1 on the table
	long := strings.Repeat("x", 50)
	cases := []struct {
		name string
		side Side
		m    Move
		code Code
		msg  string
	}{
		{"approve as a move", SideB, Move{Verdict: VerdictApprove}, CodeInvalidInput, "approve is released by your human: request a confirmation instead"},
		{"cancel as a move", SideB, Move{Verdict: VerdictCancel}, CodeInvalidInput, "cancel is released by your human: request a confirmation instead"},
		{"preapprove as a move", SideA, Move{Verdict: VerdictPreapprove}, CodeInvalidInput, "verdict must be offer, counter or need_more_detail"},
		{"no verdict", SideB, Move{}, CodeInvalidInput, "verdict must be offer, counter or need_more_detail"},
		{"not a's turn", SideA, Move{Verdict: VerdictCounter, Subject: qty2}, CodeRefused, "not your turn"},
		{"offer on a table", SideB, Move{Verdict: VerdictOffer, Subject: qty2}, CodeRefused, "terms are on the table already; counter them instead"},
		{"need_more_detail with terms", SideB, Move{Verdict: VerdictNeedMoreDetail, Subject: qty2}, CodeInvalidInput, "need_more_detail carries no terms; name the fields instead"},
		{"need_more_detail with a subject of one byte", SideB, Move{Verdict: VerdictNeedMoreDetail, Subject: []byte(`0`), Fields: []string{"qty"}}, CodeInvalidInput, "need_more_detail carries no terms; name the fields instead"},
		{"subject and options", SideB, Move{Verdict: VerdictCounter, Subject: qty2, Options: []json.RawMessage{qty2, qty3}}, CodeInvalidInput, "pass subject or options, not both"},
		{"no terms", SideB, Move{Verdict: VerdictCounter}, CodeInvalidInput, "counter needs terms: subject or options"},
		{"one option", SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2}}, CodeInvalidInput, "options: 2 to 10 alternatives"},
		{"no options", SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{}}, CodeInvalidInput, "options: 2 to 10 alternatives"},
		{"need_more_detail with no options", SideB, Move{Verdict: VerdictNeedMoreDetail, Options: []json.RawMessage{}, Fields: []string{"qty"}}, CodeInvalidInput, "need_more_detail carries no terms; name the fields instead"},
		{"a subject of one byte beside options", SideB, Move{Verdict: VerdictCounter, Subject: []byte(`0`), Options: []json.RawMessage{qty2, qty3}}, CodeInvalidInput, "pass subject or options, not both"},
		{"eleven options", SideB, Move{Verdict: VerdictCounter, Options: slices.Repeat([]json.RawMessage{qty2}, 11)}, CodeInvalidInput, "options: 2 to 10 alternatives"},
		{"the same option twice", SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2, []byte(` { "qty" : 2 } `)}}, CodeInvalidInput, "options[1]: the same terms as options[0]"},
		{"a broken option", SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2, []byte(`{"place":"video"}`)}}, CodeInvalidTerms, "options[1]: missing required field: qty"},
		{"an option outside own limits", SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2, qty1}}, CodeOutsideOwnLimits, "options[1]: qty: outside your limits (min 2)"},
		{"terms outside own limits", SideB, Move{Verdict: VerdictCounter, Subject: qty1}, CodeOutsideOwnLimits, "qty: outside your limits (min 2)"},
		{"fields on a counter", SideB, Move{Verdict: VerdictCounter, Subject: qty2, Fields: []string{"qty"}}, CodeInvalidInput, "fields go with need_more_detail only"},
		{"a field twice", SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty", "place", "qty"}}, CodeInvalidInput, "fields: qty is listed twice"},
		{"an unknown field", SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{long}}, CodeInvalidInput, "fields: unknown field: " + strings.Repeat("x", 40) + "… (the fields are qty, place)"},
	}
	before := r.Snapshot()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := r.Propose(c.side, c.m, p.at.Add(time.Minute))
			refusedWith(t, before, r, err, c.code, c.msg)
		})
	}
	// And what is allowed: a need_more_detail passes the turn, keeps the
	// table, adds a round; a counter with options replaces the table.
	p.propose(SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"place", "qty"}})
	if p.r.Turn != SideA || p.r.Round != 2 || p.r.Table != r.Table {
		t.Errorf("need_more_detail: turn %s round %d", p.r.Turn, p.r.Round)
	}
	if ev := p.events[len(p.events)-1]; !slices.Equal(ev.Fields, []string{"place", "qty"}) || ev.Terms != nil {
		t.Errorf("need_more_detail event %+v", ev)
	}
	p.propose(SideA, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2, qty3, []byte(`{"qty":3,"place":"video"}`)}})
	if p.r.Round != 3 || p.r.Table.Round != 3 || !p.r.Table.AsOptions || p.r.Table.By != SideA || len(p.r.Table.Options) != 3 {
		t.Errorf("counter with options: %+v", p.r.Table)
	}
	p.replays()
	// Ten alternatives are the most a counter tables, and it tables them.
	ten := make([]json.RawMessage, 10)
	for i := range ten {
		ten[i] = []byte(fmt.Sprintf(`{"qty":%d}`, 10+i))
	}
	p.propose(SideB, Move{Verdict: VerdictCounter, Options: ten})
	if len(p.r.Table.Options) != 10 || p.r.Table.By != SideB {
		t.Errorf("counter with ten options: %+v", p.r.Table)
	}
}

func TestRequestRefusals(t *testing.T) {
	bare := joined(t, nil).r // a's turn, nothing on the table
	p := joined(t, qty1)     // b's turn
	h := p.r.Table.Options[0].Hash()
	draft := openPlay(t, OpenRequest{}).r
	cases := []struct {
		name string
		r    *Room
		side Side
		v    Verdict
		hash SubjectHash
		id   string
		code Code
		msg  string
	}{
		{"an offer", p.r, SideB, VerdictOffer, "", "x", CodeInvalidInput, "verdict must be approve or reject"},
		{"no id", p.r, SideB, VerdictApprove, h, "", CodeInvalidInput, "a confirmation needs an id"},
		{"approve out of turn", p.r, SideA, VerdictApprove, h, "x", CodeRefused, "not your turn"},
		{"approve another hash", p.r, SideB, VerdictApprove, "sha256:00", "x", CodeRefused, "subject_hash does not match the terms on the table"},
		{"approve nothing", bare, SideA, VerdictApprove, h, "x", CodeRefused, "no terms on the table"},
		{"reject nothing", bare, SideA, VerdictReject, "", "x", CodeRefused, "no terms on the table"},
		{"preapprove without asking at open", p.r, SideA, VerdictPreapprove, "", "x", CodeRefused, "nothing to preapprove"},
		{"preapprove by b", p.r, SideB, VerdictPreapprove, "", "x", CodeRefused, "nothing to preapprove"},
		{"b in a draft", draft, SideB, VerdictCancel, "", "x", CodeRefused, "only the initiator moves in a draft"},
		{"reject in a draft", draft, SideA, VerdictReject, "", "x", CodeRefused, "only an offer or cancel in a draft"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			request := c.r.Request
			if c.v == VerdictPreapprove { // the initiator's human is asked by Open, not by an agent
				request = func(side Side, _ Verdict, _ SubjectHash, id string, at time.Time, a Announcement) (*Room, Event, error) {
					return c.r.RequestPreapproval(side, id, at, a)
				}
			}
			_, _, err := request(c.side, c.v, c.hash, c.id, t0.Add(time.Hour), Announced)
			refusedWith(t, c.r.Snapshot(), c.r, err, c.code, c.msg)
		})
	}
	// Cancel is allowed out of turn, and binds to no table.
	r, ev, err := p.r.Request(SideA, VerdictCancel, h, "c", t0.Add(time.Hour), Announced)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.PendingFor(SideA); c.SubjectHash != "" || c.TableRound != 0 || ev.Hash != "" {
		t.Errorf("a cancel carries a hash or a table: %+v %+v", c, ev)
	}
	if p.r.PendingFor(SideA) != nil {
		t.Error("Request changed the receiver")
	}
}

// TestNothingToPreapprove: only the initiator's human preapproves, in a
// room opened to preapprove, while the initiator's options are on the
// table; any other request for one is refused. (A counter ends the
// preapproval, so the checks on the table's author and shape only back
// that up.)
func TestNothingToPreapprove(t *testing.T) {
	opts := []json.RawMessage{qty1, qty2}
	pre := func() *play {
		p := openPlay(t, OpenRequest{Options: opts, Preapprove: true, PreapprovalID: "pre"})
		p.join(qtySchema, nil)
		return p
	}
	plain := openPlay(t, OpenRequest{Options: opts})
	byB := pre()
	byB.propose(SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2, []byte(`{"qty":3}`)}})
	aSubject := pre()
	aSubject.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
	aSubject.propose(SideA, Move{Verdict: VerdictCounter, Subject: qty1})
	for _, c := range []struct {
		name string
		r    *Room
		side Side
	}{
		{"b, in a room to preapprove", pre().r, SideB},
		{"a, in a room not opened to preapprove", plain.r, SideA},
		{"a, with b's options on the table", byB.r, SideA},
		{"a, with its own single subject on the table", aSubject.r, SideA},
	} {
		_, _, err := c.r.RequestPreapproval(c.side, "again", t0.Add(time.Hour), Announced)
		refusedWith(t, c.r.Snapshot(), c.r, err, CodeRefused, "nothing to preapprove")
	}
	if _, _, err := pre().r.RequestPreapproval(SideA, "again", t0.Add(time.Hour), Announced); err != nil {
		t.Errorf("a, its options on the table: %v", err)
	}
}
