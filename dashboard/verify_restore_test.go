package dashboard

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// TestVerifyAReceiptLostInARestore: /verify says "valid" of a receipt
// signed with the service's keys, and, when the database does not keep it
// (a receipt issued after the backup point of a restore: its room may since
// have been agreed on other terms), says so beside it, naming the room and
// the backup's moment; the receipt it keeps gets no such line.
func TestVerifyAReceiptLostInARestore(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.agreed()
	jws, err := b.rooms.Receipt(b.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	verify := func() string {
		t.Helper()
		status, body := verifyAsStranger(t, b.base, jws)
		if status != 200 || !strings.Contains(body, `data-verdict="valid"`) {
			t.Fatalf("/verify: %d\n%s", status, body)
		}
		return body
	}
	if body := verify(); strings.Contains(body, "data-off-record") {
		t.Errorf("the receipt the database keeps is said to be off its record:\n%s", body)
	}
	// The database no longer holds it: a copy, then a restore from a backup
	// taken before the room was agreed.
	if _, err := b.pool.Exec(b.ctx, `DELETE FROM receipts WHERE room_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	room := "room " + strconv.FormatInt(id, 10)
	if body := verify(); !strings.Contains(body, "data-off-record") || !strings.Contains(body, "keeps another record of "+room+", or none") ||
		!strings.Contains(body, "another copy of its database") {
		t.Errorf("a receipt the database does not keep:\n%s", body)
	}
	r, err := app.MovePastBackup(b.ctx, b.pool, time.Now(), true, time.Now().Add(-time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	if body := verify(); !strings.Contains(body, "keeps another record of "+room+", or none: this receipt was issued after ") ||
		!strings.Contains(body, r.BackupPoint.UTC().Format("2 Jan 2006")) {
		t.Errorf("a receipt issued after the backup point (%s):\n%s", r.BackupPoint, body)
	}
}
