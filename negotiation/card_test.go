package negotiation

import (
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
