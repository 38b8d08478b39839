package app

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestViewTakesLacksAndFlagsFromTheCard: the view's you_lack, they_lack and
// outside_your_limits are what the side's card decided, and the tabler's
// own view carries none of them.
func TestViewTakesLacksAndFlagsFromTheCard(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	mine := json.RawMessage(`{"qty":{"type":"int","label":"Quantity"},"note":{"type":"string","label":"Note"},"fee":{"type":"money","label":"Fee","currency":"EUR","optional":true}}`)
	theirs := json.RawMessage(`{"qty":{"type":"int","label":"Menge"},"colour":{"type":"string","label":"Farbe"},"size":{"type":"int","label":"Größe","optional":true},"fee":{"type":"money","label":"Preis","currency":"EUR"}}`)
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: mine})
	if err != nil {
		t.Fatal(err)
	}
	j, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: theirs,
		Limits: json.RawMessage(`{"qty":{"min":2,"max":3},"fee":{"min":{"amount":"20","currency":"EUR"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	va, err := rb.rooms.Propose(rb.ctx, rb.a, open.RoomToken, MoveInput{Verdict: "offer",
		Options: []json.RawMessage{json.RawMessage(`{"qty":1,"note":"x","fee":{"amount":"10","currency":"EUR"}}`), json.RawMessage(`{"qty":2,"note":"y"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	own, _ := json.Marshal(va.TermsOnTable)
	for _, key := range []string{"you_lack", "they_lack", "outside_your_limits"} {
		if strings.Contains(string(own), `"`+key+`"`) {
			t.Errorf("the tabler's own view has %s: %s", key, own)
		}
	}
	vb, err := rb.rooms.Read(rb.ctx, rb.b, j.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	tv := vb.TermsOnTable
	if !slicesEqual(tv.YouLack, []string{"note"}) || !slicesEqual(tv.TheyLack, []string{"colour"}) {
		t.Errorf("you_lack %v, they_lack %v", tv.YouLack, tv.TheyLack)
	}
	flags, _ := json.Marshal([]any{tv.Options[0].OutsideYourLimits, tv.Options[1].OutsideYourLimits})
	if string(flags) != `[[{"field":"qty","bound":"min"},{"field":"fee","bound":"min"}],null]` {
		t.Errorf("flags %s", flags)
	}
	for i, o := range vb.Card.Options {
		if o.SubjectHash != tv.Options[i].SubjectHash {
			t.Errorf("option %d: the card and the view disagree on the terms", i)
		}
	}
}

// TestRoundsHashTheTermsAsTheTableDoes: a round's subject_hash is the hash
// of its terms' canonical form, the one the table (and an approval) quotes,
// even for text Go's JSON writer escapes when it logs the event (<, >, &,
// U+2028, U+2029): an agent that quotes the round's hash quotes the terms.
func TestRoundsHashTheTermsAsTheTableDoes(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	schema := json.RawMessage(`{"note":{"type":"string","label":"Note"}}`)
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: schema,
		Subject: json.RawMessage(`{"note":"<b>fish & chips</b> \u2028 \\u003c"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: schema}); err != nil {
		t.Fatal(err)
	}
	v, err := rb.rooms.Read(rb.ctx, rb.a, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	want := v.TermsOnTable.Options[0].SubjectHash
	if len(v.Rounds) == 0 || len(v.Rounds[0].Terms) != 1 {
		t.Fatalf("rounds %+v", v.Rounds)
	}
	if got := v.Rounds[0].Terms[0].SubjectHash; got != want {
		t.Errorf("round 1 says %s, the table %s", got, want)
	}
	var round, table any
	if err := json.Unmarshal(v.Rounds[0].Terms[0].Terms, &round); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(v.TermsOnTable.Options[0].Terms, &table); err != nil {
		t.Fatal(err)
	}
	if round.(map[string]any)["note"] != table.(map[string]any)["note"] {
		t.Errorf("round 1's terms %v, the table's %v", round, table)
	}
}
