package app

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

func testReceiptKeys(t testing.TB) *receipt.Keyring {
	t.Helper()
	k, err := receipt.NewKeyring("http://127.0.0.1:8080", 1, func(v int) []byte { return bytes.Repeat([]byte{byte(v)}, 32) })
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// agree takes a fresh room to agreed: a offers, b's human approves in the
// dashboard, a's human from a one-tap email link. It returns the room's id.
func (rb *roomsBundle) agree(t *testing.T, limitsB string) int64 {
	t.Helper()
	id, _ := rb.agreeOpened(t, OpenInput{Title: "Quarterly review", Limits: []byte(`{"meeting_time":{"min":"2026-10-13T00:00:00Z"}}`)}, limitsB)
	return id
}

// agreeOpened is agree for a room opened with in, b's limits limitsB; it
// also returns the one-tap link a's human answered through.
func (rb *roomsBundle) agreeOpened(t *testing.T, in OpenInput, limitsB string) (int64, string) {
	t.Helper()
	ta, tb := rb.openJoined(t, in, limitsB)
	v, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	cb, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	rb.confirm(t, rb.b, tb, cb)
	ca, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, ta, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	token, err := rb.rooms.IssueOneTap(rb.ctx, rb.pool, v.RoomID, ca.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := rb.rooms.DecideOneTap(rb.ctx, token, hash, true); err != nil || d.State != negotiation.StateAgreed {
		t.Fatalf("one-tap: %+v, %v", d, err)
	}
	return v.RoomID, token
}

// TestReceiptOfAnAgreedRoom: the receipt holds the agreement's facts (each
// human by display name, the channel each answered through, the log's head)
// and nothing of a limit or an email address; it is issued once, by the
// move that agrees; a room not agreed has none.
func TestReceiptOfAnAgreedRoom(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	if _, err := rb.pool.Exec(rb.ctx, `UPDATE users SET display_name = 'Ada Lovelace' WHERE email = 'alpha@example.test'`); err != nil {
		t.Fatal(err)
	}
	room := rb.agree(t, `{"meeting_time":{"max":"2026-10-30T00:00:00Z"}}`)
	rb.advance(3600e9)
	jws, err := rb.rooms.Receipt(rb.ctx, room)
	if err != nil {
		t.Fatal(err)
	}
	r, err := testReceiptKeys(t).Verify(jws)
	if err != nil {
		t.Fatal(err)
	}
	var head string
	var seq int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT head_hash, seq FROM rooms WHERE id = $1`, room).Scan(&head, &seq); err != nil {
		t.Fatal(err)
	}
	a, b := r.Parties.A, r.Parties.B
	switch {
	case r.Room.ID != room || r.Room.Title != "Quarterly review":
		t.Errorf("room %+v", r.Room)
	case a.Account != "ALPHA" || b.Account != "BETA":
		t.Errorf("accounts %q, %q", a.Account, b.Account)
	case a.Confirmation.Channel != receipt.ChannelEmail || a.Confirmation.By != "Ada Lovelace" || a.Confirmation.Verdict != "approve":
		t.Errorf("a's confirmation %+v", a.Confirmation)
	case b.Confirmation.Channel != receipt.ChannelDashboard || b.Confirmation.By != "":
		t.Errorf("b's confirmation %+v", b.Confirmation)
	case r.Log.Head != head || r.Log.Events != seq || !strings.HasPrefix(head, "sha256:"):
		t.Errorf("log %+v, room head %s seq %d", r.Log, head, seq)
	case r.SubjectHash != string(negotiation.HashOf(r.Terms)):
		t.Errorf("subject_hash %s of %s", r.SubjectHash, r.Terms)
	case !r.IssuedAt.Equal(r.Room.AgreedAt): // issued by the move that agreed, not when first asked an hour later
		t.Errorf("issued %s, agreed %s", r.IssuedAt, r.Room.AgreedAt)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(jws, ".")[1])
	for _, secret := range []string{"@example.test", "2026-10-13", "2026-10-30", "limits", "token"} {
		if bytes.Contains(payload, []byte(secret)) {
			t.Errorf("the receipt holds %q: %s", secret, payload)
		}
	}
	rb.advance(3600e9)
	again, err := rb.rooms.Receipt(rb.ctx, room)
	if err != nil || again != jws {
		t.Errorf("a second ask issued another receipt (%v)", err)
	}

	ta, _ := rb.openJoined(t, OpenInput{}, "")
	v, err := rb.rooms.Read(rb.ctx, rb.a, ta)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.Receipt(rb.ctx, v.RoomID); ErrorCodeOf(err) != ErrConflict {
		t.Errorf("a room not agreed: %v", err)
	}
	rb.checkClean(t)
}
