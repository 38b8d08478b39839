package app

import (
	"testing"
)

// TestReceiptAfterTheAccountIsDeleted: the other side keeps an agreed
// room's receipt, byte for byte, when the account across is deleted, and
// it still verifies; it names the deleted account and the person who
// confirmed for it as they were signed (docs/operations.md says so).
func TestReceiptAfterTheAccountIsDeleted(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	if _, err := rb.acc.LoginOIDC(rb.ctx, OIDCIdentity{Issuer: "https://id.example.test", Subject: "alpha-1",
		Email: "alpha@example.test", EmailVerified: true, Name: "Ann Alpha"}); err != nil {
		t.Fatal(err)
	}
	tb := rb.openAgreed(t)
	v, err := rb.rooms.Read(rb.ctx, rb.b, tb)
	if err != nil {
		t.Fatal(err)
	}
	before, err := rb.rooms.Receipt(rb.ctx, v.RoomID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.DeleteAccountNow(rb.ctx, rb.a.OwnerUserID, "alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	after, err := rb.rooms.ReceiptForHuman(rb.ctx, rb.b.OwnerUserID, v.RoomID)
	if err != nil || after != before {
		t.Fatalf("beta's receipt after the deletion: %v\n%s\n%s", err, before, after)
	}
	r, err := testReceiptKeys(t).Verify(after)
	if err != nil {
		t.Fatal(err)
	}
	if r.Parties.A.Account != "ALPHA" || r.Parties.A.Confirmation.By != "Ann Alpha" {
		t.Fatalf("the receipt names %q, confirmed by %q", r.Parties.A.Account, r.Parties.A.Confirmation.By)
	}
}
