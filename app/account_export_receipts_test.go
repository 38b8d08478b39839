package app

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/taasky/taasky/receipt"
)

// TestExportHoldsReceipts: an account's export holds each agreed room's
// signed receipt and the keys that verify it, so that what the account
// takes with it still proves its agreements offline: after the receipt
// keys rotate, and after the account is deleted (when nobody of it can
// download a receipt any more).
func TestExportHoldsReceipts(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	agreedB := rb.openAgreed(t)
	_, _ = rb.openJoined(t, OpenInput{}, "") // not agreed: no receipt
	v, err := rb.rooms.Read(rb.ctx, rb.b, agreedB)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := rb.rooms.ExportAccount(rb.ctx, rb.a.OwnerUserID, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	// What the person downloaded, read back as anyone would.
	var file struct {
		Rooms []struct {
			ID      int64  `json:"id"`
			State   string `json:"state"`
			Receipt string `json:"receipt"`
		} `json:"rooms"`
		ReceiptIssuer string             `json:"receipt_issuer"`
		ReceiptKeys   jose.JSONWebKeySet `json:"receipt_keys"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.DeleteAccountNow(rb.ctx, rb.a.OwnerUserID, "alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	rotated, err := receipt.NewKeyring("http://127.0.0.1:8080", 2, func(v int) []byte { return bytes.Repeat([]byte{byte(v)}, 32) })
	if err != nil {
		t.Fatal(err)
	}
	receipts := 0
	for _, r := range file.Rooms {
		if r.State != "agreed" {
			if r.Receipt != "" {
				t.Errorf("room %d (%s) has a receipt", r.ID, r.State)
			}
			continue
		}
		receipts++
		for name, keys := range map[string]*jose.JSONWebKeySet{"the export's keys": &file.ReceiptKeys, "the rotated keys": rotated.JWKS()} {
			got, err := receipt.Verify(r.Receipt, file.ReceiptIssuer, keys)
			if err != nil || got.Room.ID != v.RoomID || got.Parties.A.Account != "ALPHA" {
				t.Errorf("room %d's receipt with %s: %v %+v", r.ID, name, err, got)
			}
		}
	}
	if receipts != 1 || file.ReceiptIssuer != "http://127.0.0.1:8080" {
		t.Fatalf("the export holds %d receipts (want 1), issuer %q:\n%s", receipts, file.ReceiptIssuer, raw)
	}
}
