package negotiation

import (
	"fmt"
	"testing"
	"time"
)

// TestReminders: 24 h and 1 h before the deadline when the request leaves
// time for them; a short deadline gets one reminder at half the time left,
// never later than 10 minutes before; too short a deadline gets none.
func TestReminders(t *testing.T) {
	deadline := time.Date(2026, 12, 10, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		left time.Duration // from the request to the deadline
		want string        // name@time before the deadline, space separated
	}{
		{14 * 24 * time.Hour, "24h@24h0m0s 1h@1h0m0s"},
		{24*time.Hour + 5*time.Minute, "24h@24h0m0s 1h@1h0m0s"},
		{24*time.Hour + 4*time.Minute, "1h@1h0m0s"}, // the 24 h point would follow the request too closely
		{2 * time.Hour, "1h@1h0m0s"},
		{65 * time.Minute, "1h@1h0m0s"},
		{64 * time.Minute, "short@32m0s"},
		{40 * time.Minute, "short@20m0s"},
		{20 * time.Minute, "short@10m0s"},
		{16 * time.Minute, "short@10m0s"}, // half would be 8 minutes before: too late
		{15 * time.Minute, "short@10m0s"}, // five minutes after the request
		{14 * time.Minute, ""},
		{time.Minute, ""},
		{0, ""},
		{-time.Minute, ""}, // requested after the deadline (refused anyway)
	}
	for _, c := range cases {
		var got string
		for i, r := range Reminders(deadline.Add(-c.left), deadline) {
			if i > 0 {
				got += " "
			}
			got += fmt.Sprintf("%s@%s", r.Name, deadline.Sub(r.At))
		}
		if got != c.want {
			t.Errorf("requested %s before: %q, want %q", c.left, got, c.want)
		}
		first, ok := FirstReminder(deadline.Add(-c.left), deadline)
		if rs := Reminders(deadline.Add(-c.left), deadline); ok != (len(rs) > 0) || ok && !first.Equal(rs[0].At) {
			t.Errorf("requested %s before: first %s %v, want the list's first", c.left, first, ok)
		}
	}
}

// TestRemindersWholeMicroseconds: the moments computed from times with
// nanoseconds are those computed again from the same times as PostgreSQL
// keeps them.
func TestRemindersWholeMicroseconds(t *testing.T) {
	requested := time.Date(2026, 12, 10, 11, 20, 0, 123_456_789, time.UTC)
	deadline := time.Date(2026, 12, 10, 12, 0, 0, 987_654_321, time.UTC)
	a := Reminders(requested, deadline)
	b := Reminders(requested.Truncate(time.Microsecond), deadline.Truncate(time.Microsecond))
	if len(a) != 1 || len(b) != 1 || !a[0].At.Equal(b[0].At) || a[0].At.Nanosecond()%1000 != 0 {
		t.Fatalf("%v against %v", a, b)
	}
}

// TestDueReminder: a sweep sends the reminder due, once, and plans the
// next; a late sweep sends only the latest it missed; nothing is sent at or
// after the deadline, nor for a confirmation never planned.
func TestDueReminder(t *testing.T) {
	deadline := time.Date(2026, 12, 10, 12, 0, 0, 0, time.UTC)
	requested := deadline.Add(-3 * 24 * time.Hour)
	at := func(before time.Duration) time.Time { return deadline.Add(-before) }
	cases := []struct {
		name       string
		since, now time.Time
		send       string // "" for none
		next       time.Time
	}{
		{"not yet", at(24 * time.Hour), at(25 * time.Hour), "", at(24 * time.Hour)},
		{"the 24 h one", at(24 * time.Hour), at(24 * time.Hour), "24h", at(time.Hour)},
		{"run twice", at(time.Hour), at(24*time.Hour - time.Second), "", at(time.Hour)},
		{"the 1 h one, late", at(time.Hour), at(30 * time.Minute), "1h", time.Time{}},
		{"both missed", at(24 * time.Hour), at(30 * time.Minute), "1h", time.Time{}},
		{"after the deadline", at(time.Hour), deadline, "", time.Time{}},
		{"never planned", time.Time{}, at(2 * time.Hour), "", at(time.Hour)},
	}
	for _, c := range cases {
		due, ok, next := DueReminder(requested, deadline, c.since, c.now)
		if ok != (c.send != "") || ok && due.Name != c.send || !next.Equal(c.next) {
			t.Errorf("%s: %+v %v, next %s; want %q, next %s", c.name, due, ok, next, c.send, c.next)
		}
	}
	// A short deadline: requested 40 minutes before, reminded 20 minutes before.
	short := deadline.Add(-40 * time.Minute)
	first, _ := FirstReminder(short, deadline)
	if due, ok, next := DueReminder(short, deadline, first, at(19*time.Minute)); !ok || due.Name != ReminderShort || !next.IsZero() {
		t.Errorf("short deadline: %+v %v %s", due, ok, next)
	}
}
