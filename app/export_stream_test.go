package app

import (
	"bytes"
	"encoding/json"
	"testing"
)

// writeLog is an io.Writer that keeps what it is given and the largest
// single write.
type writeLog struct {
	bytes.Buffer
	writes, largest int
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.writes++
	w.largest = max(w.largest, len(p))
	return w.Buffer.Write(p)
}

// TestExportsStream: the account's export and a person's "Download my
// data" are written a room at a time, never built whole in memory first:
// a large account's export (twenty thousand rooms: 39 MB of JSON) held
// some 160 MB of heap while it was built, and as many as the account had
// rooms. Here no single write to the file is more than a quarter of
// it, and the file is laid out as json.MarshalIndent lays out the whole
// export, as it was before, and reads back whole. A refused export writes
// nothing.
func TestExportsStream(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	const rooms = 40
	rb.openAgreed(t)
	for range rooms - 1 {
		rb.openJoined(t, OpenInput{}, "")
	}
	owner := rb.a.OwnerUserID

	var ex writeLog
	if err := rb.rooms.WriteAccountExport(rb.ctx, owner, "alpha", &ex); err != nil {
		t.Fatal(err)
	}
	var whole AccountExport
	if err := json.Unmarshal(ex.Bytes(), &whole); err != nil {
		t.Fatal(err)
	}
	if len(whole.Rooms) != rooms || whole.ReceiptIssuer == "" || len(whole.ReceiptKeys) == 0 {
		t.Fatalf("the export holds %d rooms (want %d), issuer %q, keys %s", len(whole.Rooms), rooms, whole.ReceiptIssuer, whole.ReceiptKeys)
	}
	if ex.largest > ex.Len()/4 {
		t.Errorf("the export of %d bytes was written %d times, once %d bytes at a time: it was built in memory", ex.Len(), ex.writes, ex.largest)
	}
	if laid, _ := json.MarshalIndent(&whole, "", "  "); !bytes.Equal(laid, ex.Bytes()) {
		t.Errorf("the export is not laid out as before:\n%s\nwant\n%s", ex.Bytes(), laid)
	}

	var md writeLog
	if err := rb.rooms.WriteMemberData(rb.ctx, owner, &md); err != nil {
		t.Fatal(err)
	}
	var mine MemberData
	if err := json.Unmarshal(md.Bytes(), &mine); err != nil {
		t.Fatal(err)
	}
	if len(mine.Rooms) != rooms || mine.Profile.Email == "" || len(mine.Memberships) != 1 {
		t.Fatalf("my data holds %d rooms (want %d), profile %+v, memberships %+v", len(mine.Rooms), rooms, mine.Profile, mine.Memberships)
	}
	if md.largest > md.Len()/4 {
		t.Errorf("my data of %d bytes was written %d times, once %d bytes at a time: it was built in memory", md.Len(), md.writes, md.largest)
	}
	if laid, _ := json.MarshalIndent(&mine, "", "  "); !bytes.Equal(laid, md.Bytes()) {
		t.Errorf("my data is not laid out as before:\n%s\nwant\n%s", md.Bytes(), laid)
	}

	var refused writeLog
	err := rb.rooms.WriteAccountExport(rb.ctx, rb.b.OwnerUserID, "alpha", &refused)
	if ErrorCodeOf(err) != ErrNotFound || refused.Len() != 0 {
		t.Fatalf("a stranger's export: %v, %d bytes written", err, refused.Len())
	}
}
