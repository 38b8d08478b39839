package jobs

import (
	"testing"
	"time"
)

// TestNextReminder: the request schedules the first reminder still ahead,
// and each reminder the next one still ahead; none past the last.
func TestNextReminder(t *testing.T) {
	deadline := time.Date(2026, 12, 10, 12, 0, 0, 0, time.UTC)
	a := RemindArgs{RoomID: 7, Side: "b", ConfirmationID: "c1"}
	cases := []struct {
		after string
		now   time.Time
		want  string // "" for none
	}{
		{"", deadline.Add(-48 * time.Hour), "24h"},
		{"", deadline.Add(-2 * time.Hour), "1h"}, // the 24 h point has passed
		{"", deadline.Add(-30 * time.Minute), ""},
		{"24h", deadline.Add(-24 * time.Hour), "1h"},
		{"24h", deadline.Add(-30 * time.Minute), ""}, // the 24 h reminder ran late
		{"1h", deadline.Add(-time.Hour), ""},
	}
	for _, c := range cases {
		a.Before = c.after
		got, ok := NextReminder(a, deadline, c.now)
		if !ok {
			if c.want != "" {
				t.Errorf("after %q at %s: none, want %s", c.after, c.now, c.want)
			}
			continue
		}
		wantAt := deadline.Add(-time.Hour)
		if c.want == "24h" {
			wantAt = deadline.Add(-24 * time.Hour)
		}
		if got.Before != c.want || !got.At.Equal(wantAt) || got.RoomID != 7 || got.Side != "b" || got.ConfirmationID != "c1" {
			t.Errorf("after %q at %s: %+v, want %s at %s", c.after, c.now, got, c.want, wantAt)
		}
	}
}
