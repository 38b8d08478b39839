package negotiation

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

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

// TestDetailAsked: a side's human is told the fields the other side's last
// move asked detail on, in their own labels (else the other side's, marked
// theirs), until anyone moves again.
func TestDetailAsked(t *testing.T) {
	// b's schema names qty its own way and has a field a's lacks; place is
	// a's, optional.
	bSchema := []byte(`{"qty":{"type":"int","label":"How many"},"when":{"type":"date","label":"When","optional":true}}`)
	ask := func(side Side, fields ...string) func(p *play) {
		return func(p *play) { p.propose(side, Move{Verdict: VerdictNeedMoreDetail, Fields: fields}) }
	}
	then := func(steps ...func(p *play)) func(p *play) {
		return func(p *play) {
			for _, s := range steps {
				s(p)
			}
		}
	}
	var (
		qtyA   = CardNote{Name: "qty", Label: "Quantity"}
		qtyB   = CardNote{Name: "qty", Label: "How many"}
		placeA = CardNote{Name: "place", Label: "Place"} // optional: no note says so
		placeB = CardNote{Name: "place", Label: "Place", Theirs: true}
		whenA  = CardNote{Name: "when", Label: "When", Theirs: true}
	)
	for _, c := range []struct {
		name  string
		build func(p *play)
		a, b  []CardNote // what each side's human is told
	}{
		{"nothing asked", func(*play) {}, nil, nil},
		{"b asked on a's fields", ask(SideB, "qty", "place"), []CardNote{qtyA, placeA}, nil},
		{"b asked on its own field", ask(SideB, "when"), []CardNote{whenA}, nil},
		{"b asked on no field", ask(SideB), nil, nil},
		{"a field neither schema has", func(p *play) {
			p.events = append(p.events, Event{Kind: EventPropose, Side: SideB, Verdict: VerdictNeedMoreDetail, Fields: []string{"gone", "qty"}})
		}, []CardNote{qtyA}, nil},
		{"a answered with a counter", then(ask(SideB, "qty"), func(p *play) {
			p.propose(SideA, Move{Verdict: VerdictCounter, Subject: qty2})
		}), nil, nil},
		{"a asked back", then(ask(SideB, "qty"), ask(SideA, "qty", "place")), nil, []CardNote{qtyB, placeB}},
		{"a's human approved since", then(ask(SideB, "qty"), func(p *play) { p.confirm(SideA, VerdictApprove, p.r.Table.Options[0].Hash()) }), nil, nil},
		{"a's human declined to approve", then(ask(SideB, "qty"), func(p *play) {
			p.request(SideA, VerdictApprove, p.r.Table.Options[0].Hash(), "a1")
			p.decide(SideA, "a1", false)
		}), []CardNote{qtyA}, nil},
		{"b's cancel waits for its human", then(ask(SideB, "qty"), func(p *play) { p.request(SideB, VerdictCancel, "", "b1") }), []CardNote{qtyA}, nil},
		{"the room closed", then(ask(SideB, "qty"), func(p *play) { p.confirm(SideB, VerdictCancel, "") }), nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := openPlay(t, OpenRequest{Subject: qty1})
			p.join(bSchema, nil)
			c.build(p)
			for side, want := range map[Side][]CardNote{SideA: c.a, SideB: c.b} {
				if got := p.r.DetailAsked(p.events, side); !reflect.DeepEqual(got, want) {
					t.Errorf("%s is told %+v, want %+v", side, got, want)
				}
				// The events may be a window of the log's latest (a light
				// log): from the last proposal on, they tell the same.
				for i := len(p.events) - 1; i >= 0; i-- {
					if p.events[i].Kind == EventPropose {
						if got := p.r.DetailAsked(p.events[i:], side); !reflect.DeepEqual(got, want) {
							t.Errorf("from the last proposal on, %s is told %+v, want %+v", side, got, want)
						}
						break
					}
				}
			}
		})
	}
}

// TestCardOfAFieldOfAnotherType: a field both schemas name with different
// types is not the same field (Matches): the viewer's is missing, the
// other side's value shown as theirs, in their words.
func TestCardOfAFieldOfAnotherType(t *testing.T) {
	p := openPlay(t, OpenRequest{Subject: qty1})
	p.join([]byte(`{"qty":{"type":"string","label":"How many"}}`), nil)
	c := p.r.Card(SideB, false, time.UTC)
	if c == nil || len(c.Options) != 1 {
		t.Fatalf("card %+v", c)
	}
	o := c.Options[0]
	if !slices.Equal(o.MissingFields(), []string{"qty"}) || !slices.Equal(o.TheirFields(), []string{"qty"}) {
		t.Fatalf("missing %v, theirs %v: %+v", o.MissingFields(), o.TheirFields(), o.Fields)
	}
	for _, f := range o.Fields {
		if f.Theirs && (f.Label != "Quantity" || f.Type != TypeInt || f.Text != "1") {
			t.Errorf("their field %+v", f)
		}
	}
}

// TestInvitersLabels: a person answering with the inviter's schema sees
// every label marked as the inviter's words, but the slots shorthand's,
// which is Taasky's (DESIGN §4).
func TestInvitersLabels(t *testing.T) {
	var none *Card
	if none.InvitersLabels() != nil {
		t.Fatal("a nil card stays nil")
	}
	p := openPlay(t, OpenRequest{Subject: qty1})
	p.join(qtySchema, nil)
	for _, f := range p.r.Card(SideB, false, time.UTC).InvitersLabels().Options[0].Fields {
		if !f.TheirLabel {
			t.Errorf("%s: the inviter's label is not marked theirs", f.Name)
		}
	}
	p = openPlay(t, OpenRequest{Slots: []json.RawMessage{slot(9)}})
	p.join(SlotsSchema().Canonical(), nil)
	for _, f := range p.r.Card(SideB, false, time.UTC).InvitersLabels().Options[0].Fields {
		if !f.Shorthand || f.TheirLabel {
			t.Errorf("%s: the slots shorthand's label is marked theirs (shorthand %v)", f.Name, f.Shorthand)
		}
	}
}
