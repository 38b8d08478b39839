package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	t0        = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	qtySchema = []byte(`{"qty":{"type":"int","label":"Quantity"},"place":{"type":"enum","label":"Place","values":["office","video"],"optional":true}}`)
	qty1      = []byte(`{"qty":1}`)
	qty2      = []byte(`{"qty":2}`)
	qty3      = []byte(`{"qty":3}`)
)

// play is a room under test with the log of its events.
type play struct {
	t      *testing.T
	r      *Room
	events []Event
	limits [2][]byte
	at     time.Time
}

func openPlay(t *testing.T, req OpenRequest) *play {
	t.Helper()
	if req.Schema == nil && req.Slots == nil {
		req.Schema = qtySchema
	}
	r, events, _, err := Open(req, t0)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return &play{t: t, r: r, events: events, limits: [2][]byte{req.Limits}, at: t0}
}

// joined opens with qtySchema (and the opening subject, if any) and lets b join.
func joined(t *testing.T, subject []byte) *play {
	t.Helper()
	p := openPlay(t, OpenRequest{Subject: subject})
	p.join(qtySchema, nil)
	return p
}

func (p *play) tick() time.Time { p.at = p.at.Add(time.Minute); return p.at }

func (p *play) ok(r *Room, ev Event, err error) {
	p.t.Helper()
	if err != nil {
		p.t.Fatalf("%v", err)
	}
	p.r = r
	p.events = append(p.events, ev)
}

func (p *play) join(schema, limits []byte) {
	p.t.Helper()
	r, ev, err := p.r.Join(schema, limits, p.tick())
	p.ok(r, ev, err)
	p.limits[1] = limits
}

func (p *play) propose(side Side, m Move) {
	p.t.Helper()
	r, ev, err := p.r.Propose(side, m, p.tick())
	p.ok(r, ev, err)
}

func (p *play) request(side Side, v Verdict, h SubjectHash, id string) {
	p.t.Helper()
	r, ev, err := p.r.Request(side, v, h, id, p.tick())
	p.ok(r, ev, err)
}

func (p *play) decide(side Side, id string, accept bool) (Result, string) {
	p.t.Helper()
	r, ev, why, err := p.r.Decide(side, id, pendingHash(p.r, side, id), accept, p.tick())
	p.ok(r, ev, err)
	return ev.Outcome, why
}

// confirm requests a human move and has the human accept it.
func (p *play) confirm(side Side, v Verdict, h SubjectHash) {
	p.t.Helper()
	id := "c" + string(side) + string(v)
	p.request(side, v, h, id)
	if res, why := p.decide(side, id, true); res != ResultApplied {
		p.t.Fatalf("%s %s: %s (%s)", side, v, res, why)
	}
}

// replays checks that the log replays to the room and the snapshot restores it.
func (p *play) replays() {
	p.t.Helper()
	again, err := Replay(p.events, p.limits)
	if err != nil {
		p.t.Fatalf("replay: %v", err)
	}
	if !bytes.Equal(again.Snapshot(), p.r.Snapshot()) {
		p.t.Fatalf("replay differs\n got %s\nwant %s", again.Snapshot(), p.r.Snapshot())
	}
	restored, err := Restore(p.r.Snapshot(), p.limits)
	if err != nil || !bytes.Equal(restored.Snapshot(), p.r.Snapshot()) {
		p.t.Fatalf("restore differs: %v", err)
	}
}

// refusedWith checks err's text and code, and that the room did not change.
func refusedWith(t *testing.T, before []byte, r *Room, err error, code Code, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v, want %s %q", err, code, msg)
	}
	if e.Code != code || e.Message != msg {
		t.Errorf("error %s %q, want %s %q", e.Code, e.Message, code, msg)
	}
	if before != nil && !bytes.Equal(before, r.Snapshot()) {
		t.Errorf("the refusal changed the room")
	}
}

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
		_, _, err := r.Request(side, v, r.Table.Options[0].Hash(), "try", at)
		return err
	default:
		_, _, err := r.Request(side, v, "", "try", at)
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
			want{[]Verdict{VerdictCancel}, "It is the other side's turn. Wait, and read the room again later."}},
		{"terms on the table, b's turn", func(t *testing.T) *Room { return joined(t, qty1).r },
			want{[]Verdict{VerdictCancel}, "It is the other side's turn. Wait, and read the room again later."},
			want{all, "Your turn: approve the terms on the table (quote their subject_hash), counter, ask for more detail, or reject."}},
		{"b approved, a's turn", func(t *testing.T) *Room {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictApprove, p.r.Table.Options[0].Hash())
			return p.r
		},
			want{all, "The other side approved sha256:" + "%HASH%" + ". Approve the same subject_hash to agree, or counter."},
			want{[]Verdict{VerdictCancel}, "It is the other side's turn. Wait, and read the room again later."}},
		{"b's human asked, on b's turn; a's cancel asked out of turn", func(t *testing.T) *Room {
			p := joined(t, qty1)
			p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
			p.request(SideA, VerdictCancel, "", "a1")
			return p.r
		},
			want{[]Verdict{VerdictCancel}, "Waiting for your human to confirm (cancel). Do not ask them again; they were notified."},
			want{[]Verdict{VerdictCounter, VerdictNeedMoreDetail, VerdictCancel}, "Waiting for your human to confirm (approve). Do not ask them again; they were notified."}},
		{"agreed", func(t *testing.T) *Room {
			p := joined(t, qty1)
			h := p.r.Table.Options[0].Hash()
			p.confirm(SideB, VerdictApprove, h)
			p.confirm(SideA, VerdictApprove, h)
			return p.r
		},
			want{none, "Agreed: both humans approved the same terms. Nothing more to do."},
			want{none, "Agreed: both humans approved the same terms. Nothing more to do."}},
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

func TestDue(t *testing.T) {
	day := 24 * time.Hour
	t.Run("an unanswered invitation expires at 72 hours", func(t *testing.T) {
		r := openPlay(t, OpenRequest{}).r
		if r.ExpiresAt != t0.Add(72*time.Hour) || r.Deadline != t0.Add(14*day) {
			t.Fatalf("expires %v, deadline %v", r.ExpiresAt, r.Deadline)
		}
		if reason, due := r.Due(r.ExpiresAt.Add(-time.Nanosecond)); due {
			t.Errorf("due (%s) before the invitation's end", reason)
		}
		if reason, due := r.Due(r.ExpiresAt); !due || reason != ClosedExpired {
			t.Errorf("at the invitation's end: %q %v, want expired", reason, due)
		}
		if reason, due := r.Due(r.Deadline.Add(day)); !due || reason != ClosedExpired {
			t.Errorf("after the deadline too: %q %v, want expired", reason, due)
		}
		before := r.Snapshot()
		_, _, err := r.Propose(SideA, Move{Verdict: VerdictOffer, Subject: qty1}, r.ExpiresAt)
		refusedWith(t, before, r, err, CodeRefused, "the invitation has expired")
		_, _, err = r.Join(qtySchema, nil, r.ExpiresAt)
		refusedWith(t, before, r, err, CodeRefused, "the invitation has expired")
		dueAtIs(t, r, r.ExpiresAt)
		closed, ev, err := r.CloseDue(r.ExpiresAt)
		if err != nil || closed.State != StateClosed || closed.ClosedReason != ClosedExpired || ev.Kind != EventClose || ev.Reason != ClosedExpired || closed.Turn != "" {
			t.Errorf("CloseDue: %v %+v %+v", err, closed, ev)
		}
	})
	t.Run("a deadline before the invitation's end lapses the draft", func(t *testing.T) {
		d := t0.Add(day)
		r := openPlay(t, OpenRequest{Deadline: &d}).r
		if reason, due := r.Due(d); !due || reason != ClosedLapsed {
			t.Errorf("at the deadline: %q %v, want lapsed", reason, due)
		}
		if reason, due := r.Due(r.ExpiresAt); !due || reason != ClosedLapsed {
			t.Errorf("at the invitation's end: %q %v, want lapsed", reason, due)
		}
		dueAtIs(t, r, d)
		_, _, err := r.Join(qtySchema, nil, d)
		refusedWith(t, r.Snapshot(), r, err, CodeRefused, "the deadline has passed")
	})
	t.Run("a deadline at the invitation's end lapses the draft", func(t *testing.T) {
		d := t0.Add(InvitationTTL)
		r := openPlay(t, OpenRequest{Deadline: &d}).r
		if reason, due := r.Due(d); !due || reason != ClosedLapsed {
			t.Errorf("%q %v, want lapsed", reason, due)
		}
	})
	t.Run("after the join only the deadline counts", func(t *testing.T) {
		r := joined(t, qty1).r
		if reason, due := r.Due(r.ExpiresAt.Add(day)); due {
			t.Errorf("a joined room is due (%s) after the invitation's end", reason)
		}
		if reason, due := r.Due(r.Deadline); !due || reason != ClosedLapsed {
			t.Errorf("at the deadline: %q %v, want lapsed", reason, due)
		}
		dueAtIs(t, r, r.Deadline)
		before := r.Snapshot()
		_, _, err := r.Propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2}, r.Deadline)
		refusedWith(t, before, r, err, CodeRefused, "the deadline has passed")
		_, _, err = r.CloseDue(r.Deadline.Add(-time.Second))
		refusedWith(t, before, r, err, CodeRefused, "room is not due to close")
	})
	t.Run("a finished room is never due", func(t *testing.T) {
		p := joined(t, qty1)
		h := p.r.Table.Options[0].Hash()
		p.confirm(SideB, VerdictApprove, h)
		p.confirm(SideA, VerdictApprove, h)
		if p.r.State != StateAgreed {
			t.Fatalf("state %s", p.r.State)
		}
		late := p.r.Deadline.Add(30 * day)
		if reason, due := p.r.Due(late); due {
			t.Errorf("agreed room due: %s", reason)
		}
		if at, ok := p.r.DueAt(); ok {
			t.Errorf("agreed room due at %s", at)
		}
		_, _, err := p.r.CloseDue(late)
		refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "room is agreed")
	})
}

// dueAtIs checks that r is first due at want: DueAt says so, and Due
// agrees just before and at that moment.
func dueAtIs(t *testing.T, r *Room, want time.Time) {
	t.Helper()
	at, ok := r.DueAt()
	if !ok || !at.Equal(want) {
		t.Errorf("DueAt %s %v, want %s", at, ok, want)
	}
	if _, due := r.Due(want.Add(-time.Nanosecond)); due {
		t.Errorf("due before %s", want)
	}
	if _, due := r.Due(want); !due {
		t.Errorf("not due at %s", want)
	}
}

func TestOpenDeadline(t *testing.T) {
	for _, c := range []struct {
		deadline time.Time
		err      string
	}{
		{t0, "deadline must be in the future"},
		{t0.Add(-time.Hour), "deadline must be in the future"},
		{t0.Add(MaxDeadline + time.Nanosecond), "deadline must be at most 90 days away"},
		{t0.Add(MaxDeadline), ""},
		{t0.Add(time.Nanosecond), ""},
	} {
		d := c.deadline
		r, _, _, err := Open(OpenRequest{Schema: qtySchema, Deadline: &d}, t0)
		if errText(err) != c.err {
			t.Errorf("deadline %v: error %q, want %q", d, errText(err), c.err)
		}
		if err != nil {
			if e := err.(*Error); e.Code != CodeInvalidInput {
				t.Errorf("code %s", e.Code)
			}
		} else if !r.Deadline.Equal(d) {
			t.Errorf("deadline %v, want %v", r.Deadline, d)
		}
	}
	// A deadline given in another zone is kept in UTC.
	d := t0.Add(48 * time.Hour).In(time.FixedZone("X", -5*3600))
	r, _, _, err := Open(OpenRequest{Schema: qtySchema, Deadline: &d}, t0)
	if err != nil || r.Deadline.Location() != time.UTC || !r.Deadline.Equal(d) {
		t.Errorf("deadline %v (%v)", r.Deadline, err)
	}
}

func TestOpenRefusals(t *testing.T) {
	slot := func(start, end string) json.RawMessage {
		return json.RawMessage(`{"start":"` + start + `","end":"` + end + `"}`)
	}
	good := slot("2026-03-03T10:00:00Z", "2026-03-03T10:30:00Z")
	bad := slot("2026-03-03T10:00:00Z", "2026-03-03T09:30:00Z")
	eleven := make([]json.RawMessage, 11)
	for i := range eleven {
		eleven[i] = good
	}
	cases := []struct {
		name string
		req  OpenRequest
		code Code
		msg  string
	}{
		{"nothing", OpenRequest{}, CodeInvalidInput, "subject_schema is required (or slots, for a meeting time)"},
		{"schema and slots", OpenRequest{Schema: qtySchema, Slots: []json.RawMessage{good}}, CodeInvalidInput, "pass subject_schema or slots, not both"},
		{"slots and subject", OpenRequest{Slots: []json.RawMessage{good}, Subject: qty1}, CodeInvalidInput, "slots are the opening options; pass no subject or options with them"},
		{"slots and options", OpenRequest{Slots: []json.RawMessage{good}, Options: []json.RawMessage{qty1, qty2}}, CodeInvalidInput, "slots are the opening options; pass no subject or options with them"},
		{"eleven slots", OpenRequest{Slots: eleven}, CodeInvalidInput, "slots: at most 10"},
		{"subject and options", OpenRequest{Schema: qtySchema, Subject: qty1, Options: []json.RawMessage{qty1, qty2}}, CodeInvalidInput, "pass subject or options, not both"},
		{"preapprove one subject", OpenRequest{Schema: qtySchema, Subject: qty1, Preapprove: true, PreapprovalID: "p"}, CodeInvalidInput, "preapprove needs options or slots to choose from"},
		{"preapprove one slot", OpenRequest{Slots: []json.RawMessage{good}, Preapprove: true, PreapprovalID: "p"}, CodeInvalidInput, "preapprove needs options or slots to choose from"},
		{"preapprove without an id", OpenRequest{Schema: qtySchema, Options: []json.RawMessage{qty1, qty2}, Preapprove: true}, CodeInvalidInput, "a confirmation needs an id"},
		{"one bad slot", OpenRequest{Slots: []json.RawMessage{bad}}, CodeInvalidTerms, "slots: meeting_time: end must be after start"},
		{"a bad slot among two", OpenRequest{Slots: []json.RawMessage{good, bad}}, CodeInvalidTerms, "slots: options[1]: meeting_time: end must be after start"},
		{"the same slot twice", OpenRequest{Slots: []json.RawMessage{good, good}}, CodeInvalidInput, "slots: options[1]: the same terms as options[0]"},
		{"bad schema", OpenRequest{Schema: []byte(`{"Qty":{"type":"int","label":"Q"}}`)}, CodeInvalidSchema, `field name "Qty": use lowercase letters, digits and _, starting with a letter, at most 32 characters`},
		{"bad limits", OpenRequest{Schema: qtySchema, Limits: []byte(`{"qty":{"min":"1"}}`)}, CodeInvalidLimits, "limits.qty.min: must be a whole number, not a string"},
		{"opening terms outside own limits", OpenRequest{Schema: qtySchema, Limits: []byte(`{"qty":{"max":10}}`), Subject: []byte(`{"qty":11}`)}, CodeOutsideOwnLimits, "qty: outside your limits (max 10)"},
	}
	for _, c := range cases {
		r, events, _, err := Open(c.req, t0)
		if r != nil || events != nil {
			t.Errorf("%s: a refused open returned a room", c.name)
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%s: error %v, want %s %q", c.name, err, c.code, c.msg)
		}
	}
}

func TestOpenEventsAndWarnings(t *testing.T) {
	schema := []byte(`{"meeting":{"type":"timerange","label":"Meeting"},"duration_minutes":{"type":"int","label":"Duration"}}`)
	opts := []json.RawMessage{
		[]byte(`{"meeting":{"start":"2026-03-03T10:00:00+01:00","end":"2026-03-03T11:00:00+01:00"},"duration_minutes":60}`),
		[]byte(`{"meeting":{"start":"2026-03-04T10:00:00+01:00","end":"2026-03-04T11:00:00+01:00"},"duration_minutes":60}`),
	}
	r, events, warnings, err := Open(OpenRequest{Schema: schema, Options: opts, Preapprove: true, PreapprovalID: "pre"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(warnings, []string{"duration_minutes: a timerange already says how long; a separate duration can contradict it"}) {
		t.Errorf("warnings %q", warnings)
	}
	var kinds []EventKind
	for _, ev := range events {
		kinds = append(kinds, ev.Kind)
	}
	if !slices.Equal(kinds, []EventKind{EventOpen, EventPropose, EventRequest}) {
		t.Fatalf("events %v", kinds)
	}
	if !events[0].Preapprove || events[0].Side != SideA || !bytes.Equal(events[0].Schema, mustSchema(t, schema).Declared()) {
		t.Errorf("open event %+v", events[0])
	}
	if ev := events[1]; ev.Verdict != VerdictOffer || !ev.AsOptions || len(ev.Terms) != 2 || !bytes.Equal(ev.Terms[1], r.Table.Options[1].Canonical()) {
		t.Errorf("propose event %+v", ev)
	}
	if ev := events[2]; ev.Verdict != VerdictPreapprove || ev.ConfirmationID != "pre" || ev.Side != SideA {
		t.Errorf("request event %+v", ev)
	}
	if c := r.PendingFor(SideA); c == nil || c.ID != "pre" || c.Verdict != VerdictPreapprove || c.TableRound != 0 || c.SubjectHash != "" {
		t.Errorf("pending %+v", c)
	}
	if r.State != StateDraft || r.Round != 1 || r.Turn != "" || !r.Preapprove || r.Preapproved {
		t.Errorf("room %+v", r)
	}
}

func TestJoinRefusals(t *testing.T) {
	t.Run("withdrawn", func(t *testing.T) {
		p := openPlay(t, OpenRequest{Subject: qty1})
		p.confirm(SideA, VerdictCancel, "")
		if p.r.ClosedReason != ClosedWithdrawn {
			t.Fatalf("closed %s, want withdrawn", p.r.ClosedReason)
		}
		_, _, err := p.r.Join(qtySchema, nil, p.tick())
		refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "the invitation was withdrawn")
	})
	t.Run("expired", func(t *testing.T) {
		p := openPlay(t, OpenRequest{})
		r, _, err := p.r.CloseDue(p.r.ExpiresAt)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = r.Join(qtySchema, nil, r.ExpiresAt)
		refusedWith(t, r.Snapshot(), r, err, CodeRefused, "the invitation has expired")
	})
	t.Run("lapsed before anyone joined", func(t *testing.T) {
		d := t0.Add(time.Hour)
		p := openPlay(t, OpenRequest{Deadline: &d})
		r, _, err := p.r.CloseDue(d)
		if err != nil || r.ClosedReason != ClosedLapsed {
			t.Fatalf("%v %s", err, r.ClosedReason)
		}
		_, _, err = r.Join(qtySchema, nil, d)
		refusedWith(t, r.Snapshot(), r, err, CodeRefused, "room is closed")
	})
	t.Run("used already", func(t *testing.T) {
		p := joined(t, qty1)
		_, _, err := p.r.Join(qtySchema, nil, p.tick())
		refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "the invitation has been used already")
		p.confirm(SideB, VerdictCancel, "")
		if p.r.ClosedReason != ClosedCancelled {
			t.Fatalf("closed %s, want cancelled", p.r.ClosedReason)
		}
		_, _, err = p.r.Join(qtySchema, nil, p.tick())
		refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "the invitation has been used already")
	})
	t.Run("bad input", func(t *testing.T) {
		r := openPlay(t, OpenRequest{}).r
		before := r.Snapshot()
		_, _, err := r.Join(nil, nil, t0)
		refusedWith(t, before, r, err, CodeInvalidInput, "subject_schema is required")
		_, _, err = r.Join([]byte(`{}`), nil, t0)
		refusedWith(t, before, r, err, CodeInvalidSchema, "subject_schema needs at least one field")
		_, _, err = r.Join(qtySchema, []byte(`{"qty":{"min":5,"max":1}}`), t0)
		refusedWith(t, before, r, err, CodeInvalidLimits, "limits.qty: min must be before max")
	})
	t.Run("slots: the inviter's schema", func(t *testing.T) {
		p := openPlay(t, OpenRequest{Slots: []json.RawMessage{
			[]byte(`{"start":"2026-03-03T10:00:00Z","end":"2026-03-03T10:30:00Z"}`),
			[]byte(`{"start":"2026-03-03T11:00:00Z","end":"2026-03-03T11:30:00Z"}`)}})
		p.join(nil, nil)
		if !bytes.Equal(p.r.Party(SideB).Schema.Canonical(), SlotsSchema().Canonical()) || p.r.Turn != SideB {
			t.Errorf("b's schema %s, turn %s", p.r.Party(SideB).Schema.Canonical(), p.r.Turn)
		}
		if p.events[len(p.events)-1].Schema == nil {
			t.Error("the join event does not record the schema b joined with")
		}
		p.replays()
	})
}

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
		{"subject and options", SideB, Move{Verdict: VerdictCounter, Subject: qty2, Options: []json.RawMessage{qty2, qty3}}, CodeInvalidInput, "pass subject or options, not both"},
		{"no terms", SideB, Move{Verdict: VerdictCounter}, CodeInvalidInput, "counter needs terms: subject or options"},
		{"one option", SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2}}, CodeInvalidInput, "options: 2 to 10 alternatives"},
		{"eleven options", SideB, Move{Verdict: VerdictCounter, Options: slices.Repeat([]json.RawMessage{qty2}, 11)}, CodeInvalidInput, "options: 2 to 10 alternatives"},
		{"the same option twice", SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2, []byte(` { "qty" : 2 } `)}}, CodeInvalidInput, "options[1]: the same terms as options[0]"},
		{"a broken option", SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2, []byte(`{"place":"video"}`)}}, CodeInvalidTerms, "options[1]: missing required field: qty"},
		{"an option outside own limits", SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2, qty1}}, CodeOutsideOwnLimits, "options[1]: qty: outside your limits (min 2)"},
		{"terms outside own limits", SideB, Move{Verdict: VerdictCounter, Subject: qty1}, CodeOutsideOwnLimits, "qty: outside your limits (min 2)"},
		{"fields on a counter", SideB, Move{Verdict: VerdictCounter, Subject: qty2, Fields: []string{"qty"}}, CodeInvalidInput, "fields go with need_more_detail only"},
		{"a field twice", SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty", "place", "qty"}}, CodeInvalidInput, "fields: qty is listed twice"},
		{"an unknown field", SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{long}}, CodeInvalidInput, "fields: unknown field: " + strings.Repeat("x", 40) + "…"},
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
				request = func(side Side, _ Verdict, _ SubjectHash, id string, at time.Time) (*Room, Event, error) {
					return c.r.RequestPreapproval(side, id, at)
				}
			}
			_, _, err := request(c.side, c.v, c.hash, c.id, t0.Add(time.Hour))
			refusedWith(t, c.r.Snapshot(), c.r, err, c.code, c.msg)
		})
	}
	// Cancel is allowed out of turn, and binds to no table.
	r, ev, err := p.r.Request(SideA, VerdictCancel, h, "c", t0.Add(time.Hour))
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

func TestConfirmations(t *testing.T) {
	t.Run("a new request replaces the pending one", func(t *testing.T) {
		p := joined(t, qty1)
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "first")
		p.request(SideB, VerdictReject, "", "second")
		_, _, _, err := p.r.Decide(SideB, "first", "", true, p.tick())
		refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "this confirmation is no longer pending")
		_, _, _, err = p.r.Decide(SideA, "second", "", true, p.tick())
		refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "this confirmation is no longer pending")
		if res, _ := p.decide(SideB, "second", true); res != ResultApplied || p.r.State != StateClosed || p.r.ClosedReason != ClosedRejected {
			t.Errorf("%s: %s %s", res, p.r.State, p.r.ClosedReason)
		}
		p.replays()
	})
	t.Run("a decline changes nothing but the pending", func(t *testing.T) {
		p := joined(t, qty1)
		before := *p.r
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
		if res, why := p.decide(SideB, "b1", false); res != ResultDeclined || why != "" {
			t.Errorf("%s %q", res, why)
		}
		if p.r.PendingFor(SideB) != nil || p.r.Approval(SideB) != "" || p.r.Turn != before.Turn || p.r.Round != before.Round || p.r.State != StateAwaiting {
			t.Errorf("room after a decline: %+v", p.r)
		}
		p.replays()
	})
	t.Run("a counter voids the approvals and the pending approve, not a pending cancel", func(t *testing.T) {
		p := joined(t, qty1)
		p.request(SideA, VerdictCancel, "", "a-cancel")
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b-approve")
		p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
		if p.r.PendingFor(SideB) != nil || p.r.PendingFor(SideA) == nil {
			t.Fatalf("pending a %v, b %v", p.r.PendingFor(SideA), p.r.PendingFor(SideB))
		}
		if res, _ := p.decide(SideA, "a-cancel", true); res != ResultApplied || p.r.ClosedReason != ClosedCancelled {
			t.Errorf("%s %s", res, p.r.ClosedReason)
		}
		p.replays()
	})
	t.Run("an answer after the deadline is void", func(t *testing.T) {
		p := joined(t, qty1)
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
		r, ev, why, err := p.r.Decide(SideB, "b1", p.r.Table.Options[0].Hash(), true, p.r.Deadline)
		if err != nil || ev.Outcome != ResultVoid || why != "the deadline has passed" {
			t.Fatalf("%v %s %q", err, ev.Outcome, why)
		}
		if r.PendingFor(SideB) != nil || r.Approval(SideB) != "" || r.State != StateAwaiting {
			t.Errorf("a void answer changed the room: %+v", r)
		}
	})
	t.Run("an answer bound to an older table is void", func(t *testing.T) {
		// No move leaves an approve pending across a new table (a counter
		// voids it), so the stale confirmation is made by hand here.
		p := joined(t, qty1)
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
		stale := *p.r.PendingFor(SideB)
		stale.TableRound = p.r.Table.Round - 1
		r := p.r.clone()
		r.Pending[1] = &stale
		n, ev, why, err := r.Decide(SideB, "b1", stale.SubjectHash, true, p.tick())
		if err != nil || ev.Outcome != ResultVoid || why != "the terms on the table changed" || n.Approval(SideB) != "" {
			t.Errorf("%v %s %q", err, ev.Outcome, why)
		}
	})
	t.Run("approving an option narrows the table and drops the other option's approval", func(t *testing.T) {
		p := openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, qty2, qty3}})
		p.join(qtySchema, nil)
		hashes := p.r.Table.Hashes()
		if len(hashes) != 3 || hashes[1] != p.r.Table.Options[1].Hash() {
			t.Fatalf("hashes %v", hashes)
		}
		if o, ok := p.r.Table.Find(hashes[2]); !ok || o != p.r.Table.Options[2] {
			t.Error("Find does not find the third option")
		}
		if _, ok := p.r.Table.Find("sha256:none"); ok {
			t.Error("Find found a hash that is not on the table")
		}
		p.confirm(SideB, VerdictApprove, hashes[1])
		if got := p.r.Table.Hashes(); !slices.Equal(got, hashes[1:2]) || !p.r.Table.AsOptions {
			t.Errorf("table after the pick: %v", got)
		}
		if p.r.Approval(SideB) != hashes[1] || p.r.Approval(SideA) != "" || p.r.Turn != SideA || p.r.Round != 1 {
			t.Errorf("approvals %v turn %s round %d", p.r.Approvals, p.r.Turn, p.r.Round)
		}
		p.confirm(SideA, VerdictApprove, hashes[1])
		if p.r.State != StateAgreed || p.r.Turn != "" || p.r.Pending != [2]*Confirmation{} {
			t.Errorf("room %+v", p.r)
		}
		p.replays()
	})
}

func TestPartyAccessors(t *testing.T) {
	p := openPlay(t, OpenRequest{Limits: []byte(`{"qty":{"min":1}}`)})
	a := p.r.Party(SideA)
	if a.Schema == nil || a.Limits == nil || string(a.Limits.Raw()) != `{"qty":{"min":1}}` {
		t.Fatalf("a's party %+v", a)
	}
	if b := p.r.Party(SideB); b.Schema != nil || b.Limits != nil {
		t.Errorf("b's party before the join: %+v", b)
	}
	p.join([]byte(`{"qty":{"type":"int","label":"Anzahl"}}`), nil)
	if f, _ := p.r.Party(SideB).Schema.Field("qty"); f.Label != "Anzahl" {
		t.Errorf("b's field %+v", f)
	}
	if string(p.r.Party(SideB).Limits.Raw()) != "{}" || p.r.Party(SideB).Limits.List() != nil {
		t.Errorf("b's limits %s", p.r.Party(SideB).Limits.Raw())
	}
	if SideA.Other() != SideB || SideB.Other() != SideA {
		t.Error("Other")
	}
	if StateDraft.Terminal() || StateAwaiting.Terminal() || !StateAgreed.Terminal() || !StateClosed.Terminal() {
		t.Error("Terminal")
	}
	if p.r.Card(SideA, false, time.UTC) != nil {
		t.Error("a card with nothing on the table")
	}
}

// TestCardOfThePeerInADraft documents a hazard: with opening terms on the
// table and nobody joined, Card(b) dereferences b's nil schema and panics
// instead of returning nil or rendering through the inviter's schema.
func TestCardOfThePeerInADraft(t *testing.T) {
	r := openPlay(t, OpenRequest{Subject: qty1}).r
	defer func() {
		if v := recover(); v != nil {
			t.Fatalf("Card(b) in a draft panics: %v", v)
		}
	}()
	_ = r.Card(SideB, false, time.UTC)
}

func TestReplayRefusals(t *testing.T) {
	p := openPlay(t, OpenRequest{Subject: qty1})
	p.join(qtySchema, nil)
	p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
	p.decide(SideB, "b1", true)
	p.replays()
	log := p.events // open, propose, join, request, decide
	if kinds := []EventKind{log[0].Kind, log[1].Kind, log[2].Kind, log[3].Kind, log[4].Kind}; !slices.Equal(kinds, []EventKind{EventOpen, EventPropose, EventJoin, EventRequest, EventDecide}) {
		t.Fatalf("log %v", kinds)
	}
	edit := func(i int, f func(*Event)) []Event {
		out := slices.Clone(log)
		f(&out[i])
		return out
	}
	cases := []struct {
		name   string
		events []Event
		limits [2][]byte
		msg    string
	}{
		{"empty", nil, p.limits, "replay: the log does not start with an open"},
		{"no open first", log[2:], p.limits, "replay: the log does not start with an open"},
		{"a second open", append([]Event{log[0]}, log...), p.limits, "replay: event 1: a second open"},
		{"an unknown kind", edit(2, func(e *Event) { e.Kind = "merge" }), p.limits, `replay: event 2 (merge): unknown event kind "merge"`},
		{"another outcome", edit(4, func(e *Event) { e.Outcome = ResultDeclined }), p.limits, "replay: event 4 (decide): outcome applied, logged declined"},
		{"a refused move", edit(1, func(e *Event) { e.Side = SideB }), p.limits, "replay: event 1 (propose): only the initiator moves in a draft"},
		{"terms the schema refuses", edit(1, func(e *Event) { e.Terms = []json.RawMessage{[]byte(`{"qty":"1"}`)} }), p.limits, "replay: event 1 (propose): qty: must be a whole number, not a string"},
		{"a broken schema", edit(0, func(e *Event) { e.Schema = []byte(`{`) }), p.limits, "replay: event 0 (open): subject_schema: not valid JSON: expected a key at byte 1"},
		{"limits that do not parse", log, [2][]byte{nil, []byte(`{"nope":{}}`)}, "replay: event 2 (join): limits: unknown field: nope (limits apply to your own schema's fields)"},
		{"a decide for nothing pending", append(slices.Clone(log), log[4]), p.limits, "replay: event 5 (decide): this confirmation is no longer pending"},
	}
	for _, c := range cases {
		_, err := Replay(c.events, c.limits)
		if errText(err) != c.msg {
			t.Errorf("%s: %q, want %q", c.name, errText(err), c.msg)
		}
	}
	// A protocol error keeps its code through the wrapping.
	_, err := Replay(edit(1, func(e *Event) { e.Side = SideB }), p.limits)
	if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeRefused {
		t.Errorf("wrapped error %v", err)
	}

	// A close logged with another reason than the room's.
	d := openPlay(t, OpenRequest{})
	r, ev, err := d.r.CloseDue(d.r.ExpiresAt)
	if err != nil || r.ClosedReason != ClosedExpired {
		t.Fatal(err)
	}
	ev.Reason = ClosedLapsed
	if _, err := Replay(append(d.events, ev), d.limits); errText(err) != "replay: event 1 (close): closed expired, logged lapsed" {
		t.Errorf("close: %v", err)
	}
	// A close logged too early.
	ev.Reason, ev.At = ClosedExpired, d.r.ExpiresAt.Add(-time.Second)
	if _, err := Replay(append(d.events, ev), d.limits); errText(err) != "replay: event 1 (close): room is not due to close" {
		t.Errorf("early close: %v", err)
	}
}

// TestReplayThroughJSON: the log as stored (JSON) replays to the same
// snapshot, which is what the consistency checker compares.
func TestReplayThroughJSON(t *testing.T) {
	p := openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, []byte(`{"qty":2,"place":"video"}`)}, Preapprove: true,
		PreapprovalID: "pre", Limits: []byte(`{"place":{"one_of":["video"]}}`)})
	p.decide(SideA, "pre", true)
	p.join([]byte(`{"qty":{"type":"int","label":"Menge"},"place":{"type":"enum","label":"Ort","values":["office","video","cafe"]}}`),
		[]byte(`{"place":{"one_of":["cafe"]}}`))
	if !slices.Equal(p.r.NoDeal, []string{"place"}) {
		t.Errorf("no deal %v", p.r.NoDeal)
	}
	p.propose(SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"place"}})
	p.propose(SideA, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty"}})
	p.confirm(SideB, VerdictApprove, p.r.Table.Options[1].Hash())
	if p.r.State != StateAgreed {
		t.Fatalf("a preapproved pick does not agree the room: %s", p.r.State)
	}
	stored, err := json.Marshal(p.events)
	if err != nil {
		t.Fatal(err)
	}
	var events []Event
	if err := json.Unmarshal(stored, &events); err != nil {
		t.Fatal(err)
	}
	again, err := Replay(events, p.limits)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Snapshot(), p.r.Snapshot()) {
		t.Errorf("replay through JSON differs\n got %s\nwant %s", again.Snapshot(), p.r.Snapshot())
	}
	// Replaying with other limits gives another room: limits are part of
	// what is replayed, though no event holds them.
	other, err := Replay(events, [2][]byte{p.limits[0], nil})
	if err != nil {
		t.Fatal(err)
	}
	if other.NoDeal != nil || bytes.Equal(other.Snapshot(), p.r.Snapshot()) {
		t.Errorf("no deal with b's limits left out: %v", other.NoDeal)
	}
}

func TestRestoreRefusals(t *testing.T) {
	p := joined(t, qty1)
	snap := p.r.Snapshot()
	cases := []struct {
		name   string
		snap   string
		limits [2][]byte
		prefix string
	}{
		{"not JSON", `{"state":`, p.limits, "restore room: unexpected end of JSON input"},
		{"a broken schema", strings.Replace(string(snap), `"label":"Quantity"`, `"label":""`, 1), p.limits, "restore room: schema 0: qty: label must be a string of 1 to 80 characters"},
		{"limits that do not parse", string(snap), [2][]byte{nil, []byte(`[]`)}, "restore room: limits 1: limits must be an object of fields"},
		{"terms the tabler's schema refuses", strings.Replace(string(snap), `"terms":[{"qty":1}]`, `"terms":[{"qty":1.5}]`, 1), p.limits, "restore room: table: qty: must be a whole number, written without a decimal point or exponent"},
	}
	for _, c := range cases {
		r, err := Restore([]byte(c.snap), c.limits)
		if r != nil || errText(err) != c.prefix {
			t.Errorf("%s: %q, want %q", c.name, errText(err), c.prefix)
		}
	}
	// A snapshot is stable: restoring and snapshotting again gives the same bytes.
	r, err := Restore(snap, p.limits)
	if err != nil || !bytes.Equal(r.Snapshot(), snap) {
		t.Errorf("restore: %v\n got %s\nwant %s", err, r.Snapshot(), snap)
	}
}

// TestRestoreTableWithoutSchema documents a hazard: a snapshot whose table
// was tabled by a side without a schema (a damaged row) makes Restore
// panic on a nil schema instead of returning an error.
func TestRestoreTableWithoutSchema(t *testing.T) {
	defer func() {
		if v := recover(); v != nil {
			t.Fatalf("Restore panics: %v", v)
		}
	}()
	_, err := Restore([]byte(`{"state":"awaiting","schemas":[null,null],"table":{"by":"b","round":1,"terms":[{}]}}`), [2][]byte{})
	if err == nil {
		t.Error("a table without a schema restored without an error")
	}
}
