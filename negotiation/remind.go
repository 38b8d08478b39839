package negotiation

import "time"

// When a human is reminded of a confirmation still pending: the service's
// policy (like Pace), not the protocol: reminders are no events, and
// Replay knows nothing of them.
//
// A confirmation requested at least a day before the deadline is reminded
// of 24 hours and 1 hour before it; one requested later gets the ones of
// those still ahead. A point closer to the request than ReminderMinGap is
// dropped: it would only repeat the request. When no point is left (the
// request came less than about an hour before the deadline), the human is
// reminded once at half the time left, and never later than
// ReminderLatest before the deadline, so they still have time to answer:
// a request 40 minutes before the deadline is reminded of 20 minutes
// before it, one 16 minutes before, 10 minutes before. A request less than
// ReminderLatest + ReminderMinGap before the deadline gets no reminder.
const (
	ReminderMinGap = 5 * time.Minute
	ReminderLatest = 10 * time.Minute
)

// reminderPoints are the fixed reminders, the earliest first.
var reminderPoints = []struct {
	name   string
	before time.Duration
}{{"24h", 24 * time.Hour}, {"1h", time.Hour}}

// ReminderShort names the one reminder of a short deadline.
const ReminderShort = "short"

// Reminder is one moment a pending confirmation is reminded of. Name
// ("24h", "1h" or "short") tells the reminders of one confirmation apart.
type Reminder struct {
	Name string
	At   time.Time
}

// Reminders lists the reminders of a confirmation requested at requested
// in a room whose deadline is deadline, the earliest first. The moments are
// whole microseconds of the inputs taken to whole microseconds (what
// PostgreSQL keeps), so a list computed again from stored times is the
// same list.
func Reminders(requested, deadline time.Time) []Reminder {
	requested, deadline = requested.Truncate(time.Microsecond), deadline.Truncate(time.Microsecond)
	earliest := requested.Add(ReminderMinGap)
	var out []Reminder
	for _, p := range reminderPoints {
		if at := deadline.Add(-p.before); !at.Before(earliest) {
			out = append(out, Reminder{Name: p.name, At: at})
		}
	}
	if len(out) > 0 {
		return out
	}
	at := requested.Add(deadline.Sub(requested) / 2).Truncate(time.Microsecond)
	if latest := deadline.Add(-ReminderLatest); at.After(latest) {
		at = latest
	}
	if at.Before(earliest) {
		return nil
	}
	return []Reminder{{Name: ReminderShort, At: at}}
}

// FirstReminder is the moment of a new confirmation's first reminder;
// false when it gets none.
func FirstReminder(requested, deadline time.Time) (time.Time, bool) {
	if rs := Reminders(requested, deadline); len(rs) > 0 {
		return rs[0].At, true
	}
	return time.Time{}, false
}

// DueReminder is what a sweep at now does with a confirmation whose next
// reminder was due at since: send (ok) the latest reminder due from since
// to now (a sweep that ran late sends one, not each it missed), unless the
// deadline has passed; next is the moment of the reminder after now (zero:
// none is left). A sweep run twice finds next after now, and sends nothing
// again. A zero since (a confirmation whose reminders were never planned)
// sends nothing and plans the next reminder after now.
func DueReminder(requested, deadline, since, now time.Time) (due Reminder, ok bool, next time.Time) {
	for _, r := range Reminders(requested, deadline) {
		switch {
		case r.At.After(now):
			return due, ok, r.At
		case !since.IsZero() && !r.At.Before(since) && now.Before(deadline):
			due, ok = r, true
		}
	}
	return due, ok, time.Time{}
}
