package locale

import (
	"strconv"
	"strings"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// golang.org/x/text formats no dates, so each language's few patterns are
// written here, taken from CLDR 46 (gregorian calendar: the abbreviated
// "format" names of days and months, the yMMMEd skeleton, the short time
// (HH:mm, or H:mm where CLDR writes the hour without its leading zero),
// and the medium date-time glue). A pattern's letters: W weekday, D day
// of month, M month name, N month number, Y year, T the time (to the
// minute; with its seconds, when it has any, in writeExact: clock).
type dates struct {
	day      string // a date with its weekday
	moment   string // a date with its weekday and a time
	weekdays [7]string
	months   [12]string
	// hour is the layout of the time's hour: "15" (HH, 09:00) or "H" (CLDR's
	// H, 9:00: Spanish and Japanese).
	hour string
}

var (
	englishDates = dates{day: "W D M Y", moment: "W D M Y, T",
		weekdays: [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"},
		months:   [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}}
	germanDates = dates{day: "W, D. M Y", moment: "W, D. M Y, T",
		weekdays: [7]string{"So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa."},
		months:   [12]string{"Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."}}
	frenchDates = dates{day: "W D M Y", moment: "W D M Y, T",
		weekdays: [7]string{"dim.", "lun.", "mar.", "mer.", "jeu.", "ven.", "sam."},
		months:   [12]string{"janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."}}
	spanishDates = dates{day: "W, D M Y", moment: "W, D M Y, T",
		weekdays: [7]string{"dom", "lun", "mar", "mié", "jue", "vie", "sáb"},
		months:   [12]string{"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"}, hour: "H"}
	japaneseDates = dates{day: "Y年N月D日(W)", moment: "Y年N月D日(W) T",
		weekdays: [7]string{"日", "月", "火", "水", "木", "金", "土"},
		months:   [12]string{"1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"}, hour: "H"}
)

// write fills pattern with t (already in the reader's zone), its time to
// the minute: a moment of the service's (a deadline, when something
// happened).
func (d *dates) write(pattern string, t time.Time) string { return d.fill(pattern, t, d.minute) }

// writeExact is write for a moment a party wrote (terms, limits): its
// time with its seconds when it has any (clock).
func (d *dates) writeExact(pattern string, t time.Time) string { return d.fill(pattern, t, d.clock) }

func (d *dates) fill(pattern string, t time.Time, timeOf func(time.Time) string) string {
	var b strings.Builder
	for _, r := range pattern {
		switch r {
		case 'W':
			b.WriteString(d.weekdays[t.Weekday()])
		case 'D':
			b.WriteString(strconv.Itoa(t.Day()))
		case 'M':
			b.WriteString(d.months[t.Month()-1])
		case 'N':
			b.WriteString(strconv.Itoa(int(t.Month())))
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'T':
			b.WriteString(timeOf(t))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// minute writes t's time of day to the minute: "09:00", or "9:00" in a
// language whose hour has no leading zero.
func (d *dates) minute(t time.Time) string {
	if d.hour == "H" {
		return strconv.Itoa(t.Hour()) + t.Format(":04")
	}
	return t.Format("15:04")
}

// clock writes t's time of day as minute does, with its seconds (and
// their fraction) when it has any: what is agreed is the moment written,
// never the minute it falls in ("09:00:30–09:00:50", not "09:00–09:00").
func (d *dates) clock(t time.Time) string {
	if t.Second() == 0 && t.Nanosecond() == 0 {
		return d.minute(t)
	}
	return d.minute(t) + t.Format(":05.999999999")
}

// zoneName names loc for a reader: its IANA name, and the offset at t
// when the name alone does not say it ("Europe/Paris, UTC+01:00") or says
// it the wrong way round (tzdata's Etc/GMT+5 is UTC-05:00, POSIX's sign);
// a zone with no name is its offset.
func zoneName(t time.Time, loc *time.Location, withOffset bool) string {
	zone := loc.String()
	_, off := t.Zone()
	switch {
	case off == 0 && (zone == "UTC" || zone == ""):
		return "UTC"
	case zone == "" || zone == "Local":
		return "UTC" + t.Format("-07:00")
	case withOffset || strings.HasPrefix(zone, "Etc/GMT+") || strings.HasPrefix(zone, "Etc/GMT-"):
		return zone + ", UTC" + t.Format("-07:00")
	}
	return zone
}

// Moment writes t for a person in loc (nil: UTC), naming the zone:
// "Mon 26 Oct 2026, 11:00 (Europe/Paris)"; the zero time is "". A wall
// time loc reads twice (the hour its clocks go back) names its offset too,
// or two moments an hour apart would be written alike: "Sun 1 Nov 2026,
// 01:30 (America/New_York, UTC-04:00)". The time is to the minute: Moment
// writes the service's moments (deadlines, when something happened); a
// party's moments (terms, limits) are written to the second (Range,
// Limit).
func (p *Printer) Moment(t time.Time, loc *time.Location) string {
	return p.moment(t, loc, p.dates.write)
}

// moment is Moment with the time written by write (a party's moment:
// writeExact).
func (p *Printer) moment(t time.Time, loc *time.Location, write func(pattern string, t time.Time) string) string {
	if t.IsZero() {
		return ""
	}
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	return write(p.dates.moment, t) + " (" + zoneName(t, loc, repeated(t)) + ")"
}

// repeated reports whether t's wall clock (t in its zone) is read twice in
// that zone: in the hour its clocks go back, once at the offset before the
// change and again at the one after.
func repeated(t time.Time) bool {
	_, off := t.Zone()
	start, end := t.ZoneBounds()
	var neighbours []time.Time // an instant of the offset before t's, and of the one after
	if !start.IsZero() {
		neighbours = append(neighbours, start.Add(-time.Nanosecond))
	}
	if !end.IsZero() {
		neighbours = append(neighbours, end)
	}
	const wall = "2006-01-02 15:04:05.999999999"
	for _, n := range neighbours {
		_, o := n.Zone()
		// t moved by the difference of offsets reads as t does when it
		// falls where o is the zone's offset: the same wall clock twice.
		if o != off && t.Add(time.Duration(off-o)*time.Second).Format(wall) == t.Format(wall) {
			return true
		}
	}
	return false
}

// MomentWithUTC is Moment for a reader whose own zone is not known and
// who is shown loc's offset instead (loc: the zone of the human who
// invited them, whose name is not the reader's to know): the moment at
// that offset and again in UTC beside it, so that a guess is never taken
// for their zone ("Mon 7 Dec 2026, 09:00 (UTC+01:00) · 08:00 UTC"). loc
// UTC is written once, as Moment writes it.
func (p *Printer) MomentWithUTC(t time.Time, loc *time.Location) string {
	if isUTC(loc) {
		return p.Moment(t, loc)
	}
	off := offsetOf(t, loc)
	m := p.Moment(t, off)
	if m == "" {
		return m
	}
	return m + besideUTC + p.inUTC(t, time.Time{}, t.In(off), false)
}

// offsetOf is loc's offset at t, as a zone with no name (written
// "UTC+01:00").
func offsetOf(t time.Time, loc *time.Location) *time.Location {
	_, off := t.In(loc).Zone()
	return time.FixedZone("", off)
}

// besideUTC joins moments in a reader's guessed zone to the same in UTC.
const besideUTC = " · "

func isUTC(loc *time.Location) bool { return loc == nil || loc.String() == "UTC" }

// inUTC writes start (to end, unless zero) in UTC, after the same written
// from shown in another zone: the times alone when they fall on shown's
// day in UTC too, else with their dates.
func (p *Printer) inUTC(start, end, shown time.Time, exact bool) string {
	write, timeOf := p.dates.write, p.dates.minute
	if exact {
		write, timeOf = p.dates.writeExact, p.dates.clock
	}
	s, e := start.UTC(), end.UTC()
	day := shown.Format(time.DateOnly)
	sameDay := s.Format(time.DateOnly) == day && (end.IsZero() || e.Format(time.DateOnly) == day)
	var b string
	switch {
	case sameDay && end.IsZero():
		b = timeOf(s)
	case sameDay:
		b = timeOf(s) + "–" + timeOf(e)
	case end.IsZero():
		b = write(p.dates.moment, s)
	case s.Format(time.DateOnly) == e.Format(time.DateOnly):
		b = write(p.dates.moment, s) + "–" + timeOf(e)
	default:
		b = write(p.dates.moment, s) + " – " + write(p.dates.moment, e)
	}
	return b + " UTC"
}

// Day writes a calendar day (a date field) with its weekday.
func (p *Printer) Day(t time.Time) string { return p.dates.write(p.dates.day, t) }

// Range writes a time range in loc, naming the zone and its offset. A
// range across a change of loc's clocks gives each end its own offset and
// names the zone once: "Sun 1 Nov 2026, 01:30 UTC-04:00 – 01:30 UTC-05:00
// (America/New_York)" is an hour, where one offset would have made it none.
func (p *Printer) Range(start, end time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	s, e := start.In(loc), end.In(loc)
	if offset(s) != offset(e) {
		return p.rangeAcrossAChange(s, e, loc)
	}
	zone := " (" + zoneName(s, loc, true) + ")"
	if s.Format(time.DateOnly) == e.Format(time.DateOnly) {
		return p.dates.writeExact(p.dates.moment, s) + "–" + p.dates.clock(e) + zone
	}
	return p.dates.writeExact(p.dates.moment, s) + " – " + p.dates.writeExact(p.dates.moment, e) + zone
}

// rangeAcrossAChange is Range for s and e (in loc) at different offsets:
// each time followed by its offset (every language's moment pattern ends
// with its time), the end's date left out when it is the start's, and the
// zone's name once at the end, as Range writes it, unless it has none.
func (p *Printer) rangeAcrossAChange(s, e time.Time, loc *time.Location) string {
	b := p.dates.writeExact(p.dates.moment, s) + " UTC" + s.Format("-07:00") + " – "
	if s.Format(time.DateOnly) == e.Format(time.DateOnly) {
		b += p.dates.clock(e)
	} else {
		b += p.dates.writeExact(p.dates.moment, e)
	}
	b += " UTC" + e.Format("-07:00")
	if zone := loc.String(); zone != "" && zone != "Local" {
		b += " (" + zone + ")"
	}
	return b
}

// offset is t's offset from UTC in seconds, in its zone.
func offset(t time.Time) int {
	_, off := t.Zone()
	return off
}

// RangeWithUTC is Range for a reader shown loc's offset as a guess (see
// MomentWithUTC): "Mon 7 Dec 2026, 09:00–09:30 (UTC+01:00) · 08:00–08:30
// UTC". Both ends are at the start's offset, a zone whose clocks never
// change, even if loc's clocks change in between: what is shown is an
// offset, not loc, and UTC is beside it.
func (p *Printer) RangeWithUTC(start, end time.Time, loc *time.Location) string {
	if isUTC(loc) {
		return p.Range(start, end, loc)
	}
	off := offsetOf(start, loc)
	return p.Range(start, end, off) + besideUTC + p.inUTC(start, end, start.In(off), true)
}

// Value writes a card field's values in the reader's language: moments,
// days and yes/no in its words and patterns, amounts in its separators
// (Money); anything a party wrote (text, enum values) and whole numbers as
// the card has them.
func (p *Printer) Value(f negotiation.CardField, loc *time.Location) string {
	return p.value(f, loc, p.Range)
}

// ValueWithUTC is Value for a reader shown loc as a guess: its time
// ranges as RangeWithUTC writes them.
func (p *Printer) ValueWithUTC(f negotiation.CardField, loc *time.Location) string {
	return p.value(f, loc, p.RangeWithUTC)
}

func (p *Printer) value(f negotiation.CardField, loc *time.Location, writeRange func(start, end time.Time, loc *time.Location) string) string {
	if len(f.Values) == 0 {
		return f.Text
	}
	return strings.Join(p.items(f, loc, writeRange), "; ")
}

// Items writes each of a field's values apart, as Value writes them: a
// repeated field's values for a list, so that the reader can count them
// (one value "a; b" is other terms than two, "a" and "b", which Value
// writes alike). A field without values (missing) has none.
func (p *Printer) Items(f negotiation.CardField, loc *time.Location) []string {
	return p.items(f, loc, p.Range)
}

// ItemsWithUTC is Items for a reader shown loc as a guess, as
// ValueWithUTC.
func (p *Printer) ItemsWithUTC(f negotiation.CardField, loc *time.Location) []string {
	return p.items(f, loc, p.RangeWithUTC)
}

func (p *Printer) items(f negotiation.CardField, loc *time.Location, writeRange func(start, end time.Time, loc *time.Location) string) []string {
	parts := make([]string, len(f.Values))
	for i, v := range f.Values {
		switch f.Type {
		case negotiation.TypeTimerange:
			parts[i] = writeRange(v.Start, v.End, loc)
		case negotiation.TypeDate:
			parts[i] = p.Day(v.Start)
		case negotiation.TypeBool:
			parts[i] = p.T(Key("value." + strconv.FormatBool(v.Bool)))
		case negotiation.TypeMoney:
			parts[i] = p.amount(&v)
		case negotiation.TypeInt:
			parts[i] = strconv.FormatInt(v.Int, 10)
		default: // string, enum: as the party wrote it
			parts[i] = v.Text
		}
	}
	return parts
}
