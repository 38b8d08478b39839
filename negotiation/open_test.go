package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

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

// TestOpenDeadlineDaysOnTheOpenersCalendar: with the opener's zone, the
// default deadline is 14 days later at the open's time of day there, also
// across a clock change (Berlin and New York's hour, Lord Howe's half
// hour), and logged so that Replay, which knows no zone, reads it; 90 of
// its days are not "too far" when a clock goes back between; without a
// zone, days are 24 hours, as before.
func TestOpenDeadlineDaysOnTheOpenersCalendar(t *testing.T) {
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	berlin, ny, lordHowe, troll := zone("Europe/Berlin"), zone("America/New_York"), zone("Australia/Lord_Howe"), zone("Antarctica/Troll")
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		open string
		loc  *time.Location
		want string
	}{
		{"2026-10-20T10:00:00+02:00", berlin, "2026-11-03T10:00:00+01:00"},   // back on 25 Oct
		{"2026-03-20T10:00:00+01:00", berlin, "2026-04-03T10:00:00+02:00"},   // forward on 29 Mar
		{"2026-10-25T09:30:00-04:00", ny, "2026-11-08T09:30:00-05:00"},       // back on 1 Nov
		{"2026-03-25T09:00:00+11:00", lordHowe, "2026-04-08T09:00:00+10:30"}, // half an hour back on 5 Apr
		{"2026-10-20T10:00:00+02:00", nil, "2026-11-03T08:00:00Z"},           // UTC's days: 24 hours
		{"2026-12-01T10:00:00+01:00", berlin, "2026-12-15T10:00:00+01:00"},   // no change between
	} {
		opened := at(c.open)
		r, events, _, err := Open(OpenRequest{Schema: qtySchema, Zone: c.loc}, opened.UTC()) // the service's clock is in UTC
		if err != nil {
			t.Fatal(err)
		}
		if want := at(c.want); !r.Deadline.Equal(want) || r.Deadline.Location() != time.UTC {
			t.Errorf("opened %s in %v: deadline %v, want %s", c.open, c.loc, r.Deadline, c.want)
		}
		if logged := events[0].Deadline; (logged == nil) != r.Deadline.Equal(opened.Add(DefaultDeadline)) {
			t.Errorf("opened %s in %v: logged deadline %v", c.open, c.loc, logged)
		}
		replayed, err := Replay(events, [2][]byte{})
		if err != nil || !replayed.Deadline.Equal(r.Deadline) {
			t.Errorf("opened %s in %v: replayed deadline %v (%v), want %v", c.open, c.loc, replayed.Deadline, err, r.Deadline)
		}
	}
	for _, c := range []struct {
		open, deadline string
		loc            *time.Location
		err            string
	}{
		{"2026-09-01T10:00:00+02:00", "2026-11-30T10:00:00+01:00", berlin, ""}, // 90 days, 90 × 24 h + 1 h
		{"2026-09-01T10:00:00+02:00", "2026-11-30T10:00:01+01:00", berlin, "deadline must be at most 90 days away"},
		{"2026-09-01T10:00:00+02:00", "2026-11-30T10:00:00+01:00", nil, "deadline must be at most 90 days away"},
		{"2026-01-01T10:00:00+01:00", "2026-04-01T11:00:00+02:00", berlin, ""}, // 90 × 24 h, as taken before
		{"2026-01-01T10:00:00+01:00", "2026-04-01T11:00:01+02:00", berlin, "deadline must be at most 90 days away"},
		{"2026-01-20T09:00:00+11:00", "2026-04-20T09:00:00+10:30", lordHowe, ""},
		// Troll's clocks go back two hours, the most any zone's do: 90 of
		// its days are then 90 × 24 h + 2 h, and still not too far.
		{"2026-10-01T10:00:00+02:00", "2026-12-30T10:00:00Z", troll, ""},
		{"2026-10-01T10:00:00+02:00", "2026-12-30T10:00:01Z", troll, "deadline must be at most 90 days away"},
		// A given deadline is the one kept, whatever the zone's default
		// would be (here 14 days across a clock change).
		{"2026-10-20T10:00:00+02:00", "2026-10-22T18:00:00+02:00", berlin, ""},
	} {
		d := at(c.deadline)
		r, events, _, err := Open(OpenRequest{Schema: qtySchema, Zone: c.loc, Deadline: &d}, at(c.open))
		if errText(err) != c.err {
			t.Errorf("opened %s in %v, deadline %s: error %q, want %q", c.open, c.loc, c.deadline, errText(err), c.err)
		}
		if err == nil && !r.Deadline.Equal(d) {
			t.Errorf("opened %s in %v, deadline %s: the room's deadline is %v", c.open, c.loc, c.deadline, r.Deadline)
		}
		if err == nil {
			if _, err := Replay(events, [2][]byte{}); err != nil {
				t.Errorf("opened %s in %v, deadline %s: replay: %v", c.open, c.loc, c.deadline, err)
			}
		}
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
		{"slots and a one-byte schema", OpenRequest{Schema: []byte(`0`), Slots: []json.RawMessage{good}}, CodeInvalidInput, "pass subject_schema or slots, not both"},
		{"slots and a one-byte subject", OpenRequest{Slots: []json.RawMessage{good}, Subject: []byte(`1`)}, CodeInvalidInput, "slots are the opening options; pass no subject or options with them"},
		{"a one-byte subject and options", OpenRequest{Schema: qtySchema, Subject: []byte(`1`), Options: []json.RawMessage{qty1, qty2}}, CodeInvalidInput, "pass subject or options, not both"},
		{"eleven slots", OpenRequest{Slots: eleven}, CodeInvalidInput, "slots: 1 to 10"},
		// An empty list is given, not absent (JSON's [] decodes non-nil).
		{"no slots", OpenRequest{Slots: []json.RawMessage{}}, CodeInvalidInput, "slots: 1 to 10"},
		{"no options", OpenRequest{Schema: qtySchema, Options: []json.RawMessage{}}, CodeInvalidInput, "options: 2 to 10 alternatives"},
		{"subject and no options", OpenRequest{Schema: qtySchema, Subject: qty1, Options: []json.RawMessage{}}, CodeInvalidInput, "pass subject or options, not both"},
		{"preapprove no options", OpenRequest{Schema: qtySchema, Options: []json.RawMessage{}, Preapprove: true, PreapprovalID: "p"}, CodeInvalidInput, "options: 2 to 10 alternatives"},
		{"subject and options", OpenRequest{Schema: qtySchema, Subject: qty1, Options: []json.RawMessage{qty1, qty2}}, CodeInvalidInput, "pass subject or options, not both"},
		{"preapprove one subject", OpenRequest{Schema: qtySchema, Subject: qty1, Preapprove: true, PreapprovalID: "p"}, CodeInvalidInput, "preapprove needs options or slots to choose from"},
		{"preapprove one slot", OpenRequest{Slots: []json.RawMessage{good}, Preapprove: true, PreapprovalID: "p"}, CodeInvalidInput, "preapprove needs options or slots to choose from"},
		{"preapprove without an id", OpenRequest{Schema: qtySchema, Options: []json.RawMessage{qty1, qty2}, Preapprove: true}, CodeInvalidInput, "a confirmation needs an id"},
		{"one bad slot", OpenRequest{Slots: []json.RawMessage{bad}}, CodeInvalidTerms, "slots[0]: end must be after start"},
		{"a bad slot among two", OpenRequest{Slots: []json.RawMessage{good, bad}}, CodeInvalidTerms, "slots[1]: end must be after start"},
		{"the same slot twice", OpenRequest{Slots: []json.RawMessage{good, good}}, CodeInvalidInput, "slots[1]: the same terms as slots[0]"},
		{"bad schema", OpenRequest{Schema: []byte(`{"Qty":{"type":"int","label":"Q"}}`)}, CodeInvalidSchema, `field name "Qty": use lowercase letters, digits and _, starting with a letter, at most 32 characters`},
		{"bad limits", OpenRequest{Schema: qtySchema, Limits: []byte(`{"qty":{"min":"1"}}`)}, CodeInvalidLimits, "limits.qty.min: must be a whole number, not a string"},
		{"a subject of one byte that is no object", OpenRequest{Schema: qtySchema, Subject: []byte(`1`)}, CodeInvalidTerms, "terms must be an object of fields, not a number"},
		{"a bad option, no slots", OpenRequest{Schema: qtySchema, Options: []json.RawMessage{qty1, []byte(`{"qty":"x"}`)}}, CodeInvalidTerms, "options[1]: qty: must be a whole number, not a string"},
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
		// The reason, as the room gave it before the sweep closed it.
		_, _, err = r.Join(qtySchema, nil, d)
		refusedWith(t, r.Snapshot(), r, err, CodeRefused, "the deadline has passed")
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

// TestOneSlotRoomTakesTheInvitersSchema: a room opened with one slot is a
// slots room like one with several: the peer may join without a schema
// and is seated with the inviter's, also after a replay of its log.
func TestOneSlotRoomTakesTheInvitersSchema(t *testing.T) {
	for _, slots := range [][]json.RawMessage{{slot(9)}, {slot(9), slot(10)}} {
		r, events, _, err := Open(OpenRequest{Slots: slots}, t0)
		if err != nil {
			t.Fatal(err)
		}
		j, _, err := r.Join(nil, nil, t0.Add(time.Minute))
		if err != nil {
			t.Fatalf("%d slot(s): join without a schema: %v", len(slots), err)
		}
		if !j.Party(SideB).Schema.IsSlots() {
			t.Errorf("%d slot(s): the peer's schema is not the inviter's", len(slots))
		}
		replayed, err := Replay(events, [2][]byte{})
		if err != nil || !replayed.Slots {
			t.Errorf("%d slot(s): replayed as a slots room %v (%v)", len(slots), replayed != nil && replayed.Slots, err)
		}
	}
}

// TestOpenTenSlots: ten slots, the most a room takes, open it; two, the
// fewest, take a preapproval.
func TestOpenTenSlots(t *testing.T) {
	var slots []json.RawMessage
	for h := 8; h < 18; h++ {
		slots = append(slots, slot(h))
	}
	r, _, _, err := Open(OpenRequest{Slots: slots}, t0)
	if err != nil || len(r.Table.Options) != MaxOptions {
		t.Fatalf("ten slots: %v", err)
	}
	// Two, the fewest a preapproval chooses from, take one.
	r, _, _, err = Open(OpenRequest{Slots: slots[:MinOptions], Preapprove: true, PreapprovalID: "p"}, t0)
	if err != nil || !r.Preapprove || len(r.Table.Options) != MinOptions {
		t.Fatalf("two slots to preapprove: %v", err)
	}
}

// TestRejoin: the peer seated already is answered with its seat for the
// same join (the same schema, or none in a slots room; the same limits
// however written, or none restated); another schema or other limits are
// refused, fixed once declared (DESIGN §4).
func TestRejoin(t *testing.T) {
	limits := []byte(`{"qty":{"min":1,"max":10}}`)
	p := openPlay(t, OpenRequest{Subject: qty1})
	bSchema := []byte(`{"qty":{"type":"int","label":"How many"}}`)
	p.join(bSchema, limits)
	const schemaFixed = "subject_schema: you joined this room already with another schema; it is fixed once declared"
	const limitsFixed = "limits: you joined this room already with other limits; limits are fixed once declared"
	for _, c := range []struct {
		name           string
		schema, limits []byte
		want           string
	}{
		{"the same join", bSchema, limits, ""},
		{"the same limits written otherwise", bSchema, []byte(` { "qty" : { "max" : 10, "min" : 1 } } `), ""},
		{"limits not restated", bSchema, nil, ""},
		{"limits blank", bSchema, []byte(" \n"), ""},
		{"another schema (the inviter's)", qtySchema, limits, schemaFixed},
		{"a broken schema", []byte(`{"qty":`), limits, schemaFixed},
		{"no schema, not a slots room", nil, limits, schemaFixed},
		{"other limits", bSchema, []byte(`{"qty":{"min":1,"max":11}}`), limitsFixed},
		{"fewer limits", bSchema, []byte(`{"qty":{"min":1}}`), limitsFixed},
		{"broken limits", bSchema, []byte(`{"qty":`), limitsFixed},
	} {
		err := p.r.Rejoin(c.schema, c.limits)
		if got := fmt.Sprint(err); (c.want == "" && err != nil) || (c.want != "" && got != c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Joined with the inviter's own schema in a room that is not a slots
	// room: none given is not the same join (Join requires a schema there).
	same := openPlay(t, OpenRequest{Subject: qty1})
	same.join(qtySchema, nil)
	if err := same.r.Rejoin(nil, nil); fmt.Sprint(err) != schemaFixed {
		t.Errorf("not a slots room, joined with the inviter's schema, none given: %v, want %q", err, schemaFixed)
	}
	// Not joined yet: no seat to answer with.
	if err := openPlay(t, OpenRequest{Subject: qty1}).r.Rejoin(qtySchema, nil); err == nil {
		t.Error("a rejoin before the join is answered")
	}
	// A slots room joined with the inviter's schema: none given is the same.
	s := openPlay(t, OpenRequest{Slots: []json.RawMessage{slot(9)}})
	s.join(SlotsSchema().Canonical(), nil)
	if err := s.r.Rejoin(nil, nil); err != nil {
		t.Errorf("slots room, no schema: %v", err)
	}
	if err := s.r.Rejoin([]byte(`0`), nil); err == nil {
		t.Error("slots room, a schema of one byte that is none: answered with the seat")
	}
}

// TestInvitationEnd: the invitation can be answered InvitationTTL after the
// open, or until the deadline if that comes first.
func TestInvitationEnd(t *testing.T) {
	r := openPlay(t, OpenRequest{Subject: qty1}).r
	if got := r.InvitationEnd(); !got.Equal(t0.Add(InvitationTTL)) {
		t.Errorf("default deadline: invitation ends %v", got)
	}
	soon := t0.Add(time.Hour)
	r, _, _, err := Open(OpenRequest{Schema: qtySchema, Deadline: &soon}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.InvitationEnd(); !got.Equal(soon) {
		t.Errorf("deadline before the invitation's end: invitation ends %v", got)
	}
}

// TestGivenDeadlineNeedsZone: only a deadline past MaxDeadline's 24-hour
// days needs the opener's zone.
func TestGivenDeadlineNeedsZone(t *testing.T) {
	at, max, over := t0, t0.Add(MaxDeadline), t0.Add(MaxDeadline+time.Second)
	if GivenDeadlineNeedsZone(nil, at) || GivenDeadlineNeedsZone(&max, at) || !GivenDeadlineNeedsZone(&over, at) {
		t.Error("a zone is read for none or a deadline within MaxDeadline, or not past it")
	}
}

// TestJoinableAfterAccountDeleted: a draft closed because its inviter's
// account went says the room is closed, not that the invitation was used.
func TestJoinableAfterAccountDeleted(t *testing.T) {
	r, _, err := openPlay(t, OpenRequest{Subject: qty1}).r.CloseAccountDeleted(t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Joinable(t0.Add(2 * time.Minute)); fmt.Sprint(err) != "room is closed" {
		t.Errorf("joinable: %v", err)
	}
}
