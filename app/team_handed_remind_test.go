package app_test

import (
	"slices"
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
)

// TestHandedOverReminderGoesToTheOwners: the reminder of a confirmation
// whose human left the account goes to the account's owners, Ann and
// Otto, who answer for the seat (as its request did), and to nobody else
// of the account: not Ada, an admin.
func TestHandedOverReminderGoesToTheOwners(t *testing.T) {
	tb, ann, otto, notes, _, _, confID := handOver(t)
	var at time.Time
	if err := tb.pool.QueryRow(tb.ctx, `SELECT remind_at FROM confirmations WHERE id = $1`, confID).Scan(&at); err != nil {
		t.Fatal(err)
	}
	tb.clock.Store(at.UnixNano())
	if n, err := notes.RemindDue(tb.ctx, jobs.SweepBatch); n != 1 || err != nil {
		t.Fatalf("the sweep at the reminder: %d due (%v), want 1", n, err)
	}
	var to []int64
	if err := tb.pool.QueryRow(tb.ctx, `SELECT array_agg((args->>'user_id')::bigint ORDER BY (args->>'user_id')::bigint)
		FROM river_job WHERE kind = $1 AND args->>'topic' = $2 AND args->>'confirmation_id' = $3`,
		jobs.EmailArgs{}.Kind(), jobs.TopicReminder, confID).Scan(&to); err != nil {
		t.Fatal(err)
	}
	want := []int64{ann.ID, otto.ID}
	slices.Sort(want)
	if !slices.Equal(to, want) {
		t.Fatalf("the reminder mailed to %v, want the owners %v", to, want)
	}
}
