package negotiation

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// tryVerdict makes the move a Next verdict names, with plausible arguments.
func tryVerdict(r *Room, side Side, v Verdict, at time.Time) error {
	switch v {
	case VerdictOffer, VerdictCounter:
		_, _, err := r.Propose(side, Move{Verdict: v, Subject: qty3}, at)
		return err
	case VerdictNeedMoreDetail:
		_, _, err := r.Propose(side, Move{Verdict: v, Fields: []string{"qty"}}, at)
		return err
	case VerdictApprove:
		_, _, err := r.Request(side, v, r.Table.Options[0].Hash(), "try", at, Announced)
		return err
	default:
		_, _, err := r.Request(side, v, "", "try", at, Announced)
		return err
	}
}

func TestNextInEveryState(t *testing.T) {
	all := []Verdict{VerdictApprove, VerdictCounter, VerdictNeedMoreDetail, VerdictReject, VerdictCancel}
	none := []Verdict{}
	type want struct {
		verdicts []Verdict
		say      string
	}
	cases := []struct {
		name string
		room func(t *testing.T) *Room
		a, b want
	}{
		{"draft without terms", func(t *testing.T) *Room { return openPlay(t, OpenRequest{}).r },
			want{[]Verdict{VerdictOffer, VerdictCancel}, "Waiting for the other side to join. You may table opening terms now (offer), or cancel the invitation."},
			want{none, "Waiting for the invitation to be answered."}},
		{"draft with opening terms", func(t *testing.T) *Room { return openPlay(t, OpenRequest{Subject: qty1}).r },
			want{[]Verdict{VerdictCancel}, "Your opening terms wait for the other side to join. You may cancel the invitation."},
			want{none, "Waiting for the invitation to be answered."}},
		{"joined, nothing on the table", func(t *testing.T) *Room { return joined(t, nil).r },
			want{[]Verdict{VerdictOffer, VerdictCancel}, "Your turn: offer terms."},
			want{[]Verdict{VerdictCancel}, "It is the other side's turn: wait for their move."}},
		{"terms on the table, b's turn", func(t *testing.T) *Room { return joined(t, qty1).r },
			want{[]Verdict{VerdictCancel}, "It is the other side's turn: wait for their move."},
			want{all, "Your turn: approve the terms on the table (quote their subject_hash), counter, ask for more detail, or reject."}},
		{"b approved, a's turn", func(t *testing.T) *Room {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictApprove, p.r.Table.Options[0].Hash())
			return p.r
		},
			want{all, "The other side approved sha256:" + "%HASH%" + ". Approve the same subject_hash to agree, or counter."},
			want{[]Verdict{VerdictCancel}, "It is the other side's turn: wait for their move."}},
		{"b's human asked, on b's turn; a's cancel asked out of turn", func(t *testing.T) *Room {
			p := joined(t, qty1)
			p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
			p.request(SideA, VerdictCancel, "", "a1")
			return p.r
		},
			want{[]Verdict{VerdictCancel}, "Waiting for your human to confirm (cancel). Do not ask them again; they were notified."},
			want{[]Verdict{VerdictApprove, VerdictCounter, VerdictNeedMoreDetail, VerdictReject, VerdictCancel}, "Waiting for your human to confirm (approve). Do not ask them again; they were notified. A new request replaces it."}},
		// b's approval stands while a's own approve waits for a's human:
		// no preapproval is waiting, so next does not speak of one.
		{"b approved; a's human asked to approve, on a's turn", func(t *testing.T) *Room {
			p := joined(t, qty1)
			h := p.r.Table.Options[0].Hash()
			p.confirm(SideB, VerdictApprove, h)
			p.request(SideA, VerdictApprove, h, "a1")
			return p.r
		},
			want{all, "Waiting for your human to confirm (approve). Do not ask them again; they were notified. A new request replaces it."},
			want{[]Verdict{VerdictCancel}, "It is the other side's turn: wait for their move."}},
		{"agreed", func(t *testing.T) *Room {
			p := joined(t, qty1)
			h := p.r.Table.Options[0].Hash()
			p.confirm(SideB, VerdictApprove, h)
			p.confirm(SideA, VerdictApprove, h)
			return p.r
		},
			want{none, "Agreed: both humans approved the same terms. Read with receipt: true for the signed receipt."},
			want{none, "Agreed: both humans approved the same terms. Read with receipt: true for the signed receipt."}},
		{"rejected", func(t *testing.T) *Room {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictReject, "")
			return p.r
		},
			want{none, "The room is closed (rejected). Nothing more to do."},
			want{none, "The room is closed (rejected). Nothing more to do."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.room(t)
			for _, w := range []struct {
				side Side
				want want
			}{{SideA, c.a}, {SideB, c.b}} {
				got := r.Next(w.side)
				say := w.want.say
				if strings.Contains(say, "%HASH%") {
					say = strings.Replace(say, "sha256:%HASH%", string(r.Approval(SideB)), 1)
				}
				if !slices.Equal(got.Verdicts, w.want.verdicts) || got.Say != say {
					t.Errorf("Next(%s) = %v %q\nwant %v %q", w.side, got.Verdicts, got.Say, w.want.verdicts, say)
				}
				// The verdicts are a list in JSON, never null.
				if b, _ := json.Marshal(got); !bytes.Contains(b, []byte(`"verdicts":[`)) {
					t.Errorf("Next(%s) encodes as %s", w.side, b)
				}
				// Every verdict offered is one the room takes now.
				for _, v := range got.Verdicts {
					if err := tryVerdict(r, w.side, v, t0.Add(time.Hour)); err != nil {
						t.Errorf("Next(%s) offers %s, but it is refused: %v", w.side, v, err)
					}
				}
			}
		})
	}
}

// TestNextWithPendingCancelAndNothingOnTheTable documents a bug: with
// nothing on the table, a side whose cancel waits for its human is offered
// counter and need_more_detail (both refused: "nothing to counter yet",
// "nothing to ask about yet") and is not offered offer, which is allowed.
func TestNextWithPendingCancelAndNothingOnTheTable(t *testing.T) {
	p := joined(t, nil)
	p.request(SideA, VerdictCancel, "", "a1")
	got := p.r.Next(SideA)
	want := []Verdict{VerdictOffer, VerdictCancel}
	if !slices.Equal(got.Verdicts, want) {
		t.Fatalf("Next(a) = %v, want %v", got.Verdicts, want)
	}
}

// TestNextUnannounced: a request no message told the human of is recorded
// so with the request, and next tells the agent to tell its human, not
// that they were notified; the log replays it, the snapshot keeps it, and
// a new request (announced) replaces it.
func TestNextUnannounced(t *testing.T) {
	p := joined(t, qty1)
	h := p.r.Table.Options[0].Hash()
	r, ev, err := p.r.Request(SideB, VerdictApprove, h, "b1", p.tick(), Unannounced)
	p.ok(r, ev, err)
	if !ev.Unannounced || !p.r.PendingFor(SideB).Unannounced {
		t.Fatalf("not recorded: event %+v, pending %+v", ev, p.r.PendingFor(SideB))
	}
	want := "Waiting for your human to confirm (approve). Taasky sent them no message about it (their notification settings send none): tell them to open Taasky to confirm. A new request replaces it."
	if got := p.r.Next(SideB).Say; got != want {
		t.Errorf("Next(b).Say = %q\nwant %q", got, want)
	}
	if got := p.r.Next(SideA).Say; strings.Contains(got, "notification") {
		t.Errorf("the other side is told of b's settings: %q", got)
	}
	p.replayThroughJSON()
	restored, err := Restore(p.r.Snapshot(), p.limits)
	if err != nil {
		t.Fatal(err)
	}
	if !restored.PendingFor(SideB).Unannounced {
		t.Errorf("the snapshot loses it: %s", p.r.Snapshot())
	}
	p.request(SideB, VerdictReject, "", "b2")
	if p.r.PendingFor(SideB).Unannounced || strings.Contains(p.r.Next(SideB).Say, "no message") {
		t.Errorf("an announced request after it still says none was sent: %q", p.r.Next(SideB).Say)
	}
}

// TestNextInADraftSaysWhatWaits: in a draft, the opener's next says that
// its human is asked (a cancel of the invitation, or a preapproval), and
// not to ask them again, as in a live room.
func TestNextInADraftSaysWhatWaits(t *testing.T) {
	p := openPlay(t, OpenRequest{})
	p.request(SideA, VerdictCancel, "", "c1")
	if n := p.r.Next(SideA); !strings.HasSuffix(n.Say, "Waiting for your human to confirm (cancel). Do not ask them again; they were notified.") {
		t.Errorf("next %q", n.Say)
	}
}

// TestNextWhileAPreapprovalWaitsOnAChosenOption: b approved one of a's
// options while a's human has not confirmed the preapproval yet; a's next
// names the option chosen, which the preapproval, once confirmed, agrees.
func TestNextWhileAPreapprovalWaitsOnAChosenOption(t *testing.T) {
	p := openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, qty2}, Preapprove: true, PreapprovalID: "pre"})
	p.join(qtySchema, nil)
	h := p.r.Table.Options[1].Hash()
	p.confirm(SideB, VerdictApprove, h)
	if n := p.r.Next(SideA); !strings.HasPrefix(n.Say, "The other side approved "+string(h)+": your human's preapproval, once confirmed, agrees it. Waiting for your human to confirm (preapprove).") {
		t.Errorf("next %q", n.Say)
	}
	p.decide(SideA, "pre", true)
	if p.r.State != StateAgreed {
		t.Errorf("the preapproval confirmed: %s", p.r.State)
	}
}

// TestNextCounterWithOneChoiceLeft: next lists counter unless b's own
// limits leave it one choice of terms and those are on the table. Each
// row proves itself: listed, b counters with other; not listed, the terms
// on the table (the one choice) are refused as a counter.
func TestNextCounterWithOneChoiceLeft(t *testing.T) {
	const (
		qty     = `"qty":{"type":"int","label":"Quantity"}`
		place   = `"place":{"type":"enum","label":"Place","values":["office","video"]}`
		remote  = `"remote":{"type":"bool","label":"Remote"}`
		fee     = `"fee":{"type":"money","label":"Fee","currency":"EUR"}`
		day     = `"day":{"type":"date","label":"Day"}`
		slot    = `"slot":{"type":"timerange","label":"Slot"}`
		note    = `"note":{"type":"string","label":"Note"}`
		optArea = `"area":{"type":"enum","label":"Area","values":["north","south"],"optional":true}`
		qtys    = `"qty":{"type":"int","label":"Quantity","repeated":true}`
	)
	obj := func(parts ...string) []byte { return []byte("{" + strings.Join(parts, ",") + "}") }
	for _, c := range []struct {
		name    string
		schema  []byte // both sides' unless theirs is set
		theirs  []byte
		limits  string // b's
		table   string // a's opening subject; options when it starts with [
		counter bool
		other   string // terms b counters with when counter is listed
	}{
		{"int held to the value on the table", obj(qty), nil, `{"qty":{"min":1,"max":1}}`, `{"qty":1}`, false, ""},
		{"int held to another value", obj(qty), nil, `{"qty":{"min":1,"max":1}}`, `{"qty":2}`, true, `{"qty":1}`},
		{"int within a range", obj(qty), nil, `{"qty":{"min":1,"max":2}}`, `{"qty":1}`, true, `{"qty":2}`},
		{"int with a min only", obj(qty), nil, `{"qty":{"min":1}}`, `{"qty":1}`, true, `{"qty":5}`},
		{"no limits", obj(qty), nil, ``, `{"qty":1}`, true, `{"qty":5}`},
		{"enum held to one value", obj(place), nil, `{"place":{"one_of":["video"]}}`, `{"place":"video"}`, false, ""},
		{"enum with two values", obj(place), nil, `{"place":{"one_of":["video","office"]}}`, `{"place":"video"}`, true, `{"place":"office"}`},
		{"bool held", obj(remote), nil, `{"remote":{"equals":true}}`, `{"remote":true}`, false, ""},
		{"money held (written otherwise)", obj(fee), nil, `{"fee":{"min":{"amount":"10","currency":"EUR"},"max":{"amount":"10.00","currency":"EUR"}}}`,
			`{"fee":{"amount":"10.0","currency":"EUR"}}`, false, ""},
		{"date held", obj(day), nil, `{"day":{"min":"2026-12-10","max":"2026-12-10"}}`, `{"day":"2026-12-10"}`, false, ""},
		{"timerange within bounds", obj(slot), nil, `{"slot":{"min":"2026-12-10T09:00:00Z","max":"2026-12-10T10:00:00Z"}}`,
			`{"slot":{"start":"2026-12-10T09:00:00Z","end":"2026-12-10T10:00:00Z"}}`, true, `{"slot":{"start":"2026-12-10T09:00:00Z","end":"2026-12-10T09:30:00Z"}}`},
		{"every field held", obj(qty, place, remote), nil, `{"qty":{"min":3,"max":3},"place":{"one_of":["office"]},"remote":{"equals":false}}`,
			`{"qty":3,"place":"office","remote":false}`, false, ""},
		{"a string field", obj(qty, note), nil, `{"qty":{"min":1,"max":1}}`, `{"qty":1,"note":"a"}`, true, `{"qty":1,"note":"b"}`},
		{"an optional field, held", obj(qty, optArea), nil, `{"qty":{"min":1,"max":1},"area":{"one_of":["north"]}}`, `{"qty":1,"area":"north"}`, true, `{"qty":1}`},
		{"a list held to one value", obj(qtys), nil, `{"qty":{"min":1,"max":1}}`, `{"qty":[1]}`, true, `{"qty":[1,1]}`},
		{"options on the table", obj(qty), nil, `{"qty":{"min":1,"max":1}}`, `[{"qty":1},{"qty":2}]`, true, `{"qty":1}`},
		{"their terms have a field b lacks", obj(qty), obj(qty, note), `{"qty":{"min":1,"max":1}}`, `{"qty":1,"note":"a"}`, true, `{"qty":1}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := OpenRequest{Schema: c.schema, Subject: json.RawMessage(c.table)}
			if c.theirs != nil {
				req.Schema = c.theirs
			}
			if strings.HasPrefix(c.table, "[") {
				if err := json.Unmarshal([]byte(c.table), &req.Options); err != nil {
					t.Fatal(err)
				}
				req.Subject = nil
			}
			p := openPlay(t, req)
			p.join(c.schema, []byte(c.limits))
			if got := slices.Contains(p.r.Next(SideB).Verdicts, VerdictCounter); got != c.counter {
				t.Fatalf("next lists counter: %v, want %v (%v)", got, c.counter, p.r.Next(SideB))
			}
			subject := p.r.Table.Options[0].Canonical()
			if c.counter {
				subject = json.RawMessage(c.other)
			}
			_, _, err := p.r.Propose(SideB, Move{Verdict: VerdictCounter, Subject: subject}, p.tick())
			if (err == nil) != c.counter {
				t.Errorf("counter with %s: %v", subject, err)
			}
		})
	}
}

// TestNextUndelivered: a request whose email was refused says so in place
// of "they were notified", in a draft and in a live room; an invitation
// refused leads the sentence, naming the address when it is known; nothing
// refused changes nothing.
func TestNextUndelivered(t *testing.T) {
	p := openPlay(t, OpenRequest{})
	p.request(SideA, VerdictCancel, "", "c1")
	n := p.r.Next(SideA)
	if got := n.Undelivered(Undelivered{}); got.Say != n.Say {
		t.Errorf("nothing refused: %q", got.Say)
	}
	got := n.Undelivered(Undelivered{Invitation: true, Address: "pat@example.test", Request: true}).Say
	if !strings.HasPrefix(got, "Taasky's email inviting pat@example.test could not be delivered") ||
		!strings.HasSuffix(got, "Waiting for your human to confirm (cancel). Taasky's email asking them could not be delivered (the mail server refused it for good): "+
			"tell them yourself to answer on Taasky's dashboard, where the request waits.") {
		t.Errorf("draft: %q", got)
	}
	if got := n.Undelivered(Undelivered{Invitation: true}).Say; !strings.HasPrefix(got, "Taasky's email inviting the address given as invite_email could not") ||
		!strings.HasSuffix(got, "they were notified.") {
		t.Errorf("an invitation whose address was erased: %q", got)
	}

	live := joined(t, qty1)
	live.request(SideB, VerdictApprove, live.r.Table.Options[0].Hash(), "b1")
	got = live.r.Next(SideB).Undelivered(Undelivered{Request: true}).Say
	if want := "Waiting for your human to confirm (approve). Taasky's email asking them could not be delivered (the mail server refused it for good): " +
		"tell them yourself to answer on Taasky's dashboard, where the request waits. A new request replaces it."; got != want {
		t.Errorf("live: %q\nwant %q", got, want)
	}
}
