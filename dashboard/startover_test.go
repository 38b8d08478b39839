package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestRoomSealedUnderAnotherKey: a room opened before the installation
// started over with a new SECRET_KEY (docs/operations.md) is refused on
// its page and its one-tap links in the reader's language, with 409, not
// a 500; the one-tap link of its cancel still opens and closes it.
func TestRoomSealedUnderAnotherKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// The installation before it started over: the same database, its
	// limits sealed under another key.
	old, err := app.NewRooms(app.RoomsConfig{Pool: b.pool, River: b.river, LimitsKey: bytes.Repeat([]byte{8}, 32),
		TokenKey: bytes.Repeat([]byte{9}, 32), BaseURL: b.base})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(old.Close)
	open, err := old.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "sealed"})
	if err != nil {
		t.Fatal(err)
	}
	j, err := old.Join(b.ctx, b.beta, app.JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema,
		Limits: json.RawMessage(`{"fee":{"max":{"amount":"30.00","currency":"EUR"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	roomID := j.View.RoomID
	v, err := old.Propose(b.ctx, b.alpha, open.RoomToken, mv("offer", meeting(4, 9, "video", "20")))
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := old.RequestConfirmation(b.ctx, b.beta, j.RoomToken, "approve", v.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	approve, err := old.IssueOneTap(b.ctx, b.pool, roomID, cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}

	bob := b.client(&b.bob)
	page := fmt.Sprintf("/rooms/%d", roomID)
	const sealed = "can no longer be read or moved: its private limits were sealed with a key this installation no longer has"
	if st, _, body := bob.get(page); st != http.StatusConflict || !strings.Contains(body, fmt.Sprintf("Room %d %s", roomID, sealed)) {
		t.Errorf("the room page: %d %s", st, body)
	}
	bob.lang = "de"
	if st, _, body := bob.get(page); st != http.StatusConflict || !strings.Contains(body, "kann nicht mehr gelesen oder bewegt werden") {
		t.Errorf("the room page in German: %d %s", st, body)
	}
	anyone := b.client(nil)
	if st, _, body := anyone.get("/c/" + approve); st != http.StatusConflict || !strings.Contains(body, sealed) {
		t.Errorf("the one-tap page of an approval: %d %s", st, body)
	}

	// Its cancel goes through: the agent asks, the human's link closes it.
	cancel, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, open.RoomToken, "cancel", "")
	if err != nil {
		t.Fatalf("cancel: %v", err)
	}
	link, err := b.rooms.IssueOneTap(b.ctx, b.pool, roomID, cancel.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	if st, _, body := anyone.get("/c/" + link); st != http.StatusOK {
		t.Errorf("the one-tap page of the cancel: %d %s", st, body)
	}
	if st, _, body := anyone.post("/c/"+link, url.Values{"subject_hash": {""}, "answer": {"confirm"}}); st != http.StatusOK || !strings.Contains(body, "Done: your answer was applied.") {
		t.Errorf("the one-tap answer of the cancel: %d %s", st, body)
	}
	if l, _, err := b.rooms.List(b.ctx, b.alpha, []string{open.RoomToken}, ""); err != nil || l[0].State != "closed" || l[0].ClosedReason != "cancelled" {
		t.Errorf("the room after its cancel: %+v %v", l, err)
	}
}

// TestPersonSeatSealedUnderAnotherKey: a person's /p/ page of a room
// whose limits no longer open with this installation's key (sealed under
// the key it had before it started over) is refused with 409 and the
// words that say why, not a 500.
func TestPersonSeatSealedUnderAnotherKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seat := b.seatOf(t, "coffee")
	// What the old key sealed does not open with this one.
	if _, err := b.pool.Exec(b.ctx, `UPDATE parties SET limits_enc = decode(md5(random()::text) || md5(random()::text), 'hex') WHERE limits_enc <> ''`); err != nil {
		t.Fatal(err)
	}
	if st, _, body := b.client(nil).get("/p/" + seat); st != http.StatusConflict ||
		!strings.Contains(body, "can no longer be read or moved: its private limits were sealed with a key this installation no longer has") {
		t.Errorf("the person's page: %d %s", st, body)
	}
}
