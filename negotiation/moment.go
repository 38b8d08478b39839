package negotiation

import "time"

// Dates and moments are read by hand: time.Parse's general layout parser
// was the largest single cost of validating terms. The shape is checked
// first, exactly; the readers below then only check ranges, and accept
// exactly what time.Parse accepts (FuzzMoment and FuzzDate hold them to it).

func parseDate(path string, n *node) (time.Time, error) {
	if n.kind != kindString || len(n.s) != 10 || n.s[4] != '-' || n.s[7] != '-' {
		return time.Time{}, termsErr(path, "rule.date_shape", "must be a date like 2026-12-03")
	}
	d, ok := dateUTC(n.s)
	if !ok {
		return time.Time{}, termsErr(path, "rule.date_unreal", "%s is not a calendar day", Clip(n.s))
	}
	return d, nil
}

// parseMoment reads an RFC 3339 moment with an offset (Z or ±hh:mm).
// path+suffix names it in errors (joined only then: this is a hot path).
func parseMoment(path, suffix string, n *node) (time.Time, error) {
	if n.kind != kindString || !momentShape(n.s) {
		if n.kind == kindString && longFraction(n.s) {
			// RFC 3339 allows any number of digits; a moment is kept to the nanosecond.
			return time.Time{}, termsErr(path+suffix, "tm17_moment_fraction", "%s has more than 9 digits after the second's point (a moment is kept to the nanosecond)", Clip(n.s))
		}
		return time.Time{}, termsErr(path+suffix, "rule.moment_shape", "must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00")
	}
	t, ok := momentUTC(n.s)
	if !ok {
		if _, ok := momentUTC(n.s[:17] + "59" + n.s[19:]); ok && n.s[17:19] == "60" {
			// RFC 3339 writes a leap second so; a moment here is on UTC's
			// clock without them (as Go's and POSIX time are).
			return time.Time{}, termsErr(path+suffix, "tm17_moment_leap", "%s has a 60th second (a leap second), which is not taken: write :59 or the next minute", Clip(n.s))
		}
		return time.Time{}, termsErr(path+suffix, "rule.moment_unreal", "%s is not a real moment", Clip(n.s))
	}
	// The canonical form writes moments in UTC with a four-digit year.
	if u := t.Unix(); u < unixYear1 || u >= unixYear10000 {
		return time.Time{}, termsErr(path+suffix, "rule.moment_range", "%s is out of range (years 0001 to 9999 in UTC)", Clip(n.s))
	}
	return t, nil
}

// The first seconds of years 1 and 10000 in UTC.
const (
	unixYear1     = -62135596800
	unixYear10000 = 253402300800
)

// ReadMoment reads an RFC 3339 moment with an offset exactly as terms'
// moments are read (hh 00–23 and mm 00–59 in the offset, a '.' before a
// fraction, years 0001–9999 in UTC), in UTC, with the refusal a moment in
// terms gets (its shape, a day or time that does not exist such as a leap second, a year
// out of range), named at (CodeInvalidInput): the doors read a room's
// deadline with it.
func ReadMoment(at, s string) (time.Time, *Error) {
	t, err := parseMoment(at, "", &node{kind: kindString, s: s})
	if err != nil {
		e := *err.(*Error)
		e.Code = CodeInvalidInput
		return time.Time{}, &e
	}
	return t, nil
}

// momentShape checks the exact RFC 3339 layout: YYYY-MM-DDTHH:MM:SS, an
// optional fraction of 1 to 9 digits, and Z or ±hh:mm. Go's parser alone
// accepts a little more (a lowercase t or z, for one).
func momentShape(s string) bool {
	const head = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(head)+1 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
		!isDigits(s[0:4]) || !isDigits(s[5:7]) || !isDigits(s[8:10]) || !isDigits(s[11:13]) || !isDigits(s[14:16]) || !isDigits(s[17:19]) {
		return false
	}
	rest := s[len(head):]
	if rest[0] == '.' {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 1 || j > 10 {
			return false
		}
		rest = rest[j:]
	}
	if rest == "Z" {
		return true
	}
	// RFC 3339's offset is hh:mm with hh 00–23 and mm 00–59; Go's parser
	// alone takes +24:00.
	return len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && isDigits(rest[1:3]) && rest[3] == ':' && isDigits(rest[4:6]) &&
		rest[1:3] <= "23" && rest[4:6] <= "59"
}

// longFraction reports whether s would have momentShape but for a
// fraction of the second of more than 9 digits.
func longFraction(s string) bool {
	if len(s) < 21 || s[19] != '.' {
		return false
	}
	j := 20
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j-20 > 9 && momentShape(s[:29]+s[j:])
}

// momentUTC is time.Parse(time.RFC3339Nano, s).UTC() for an s that has
// momentShape; false where time.Parse fails: a month, day, hour, minute or
// second out of range (Go takes no leap second).
func momentUTC(s string) (time.Time, bool) {
	year, month, day, ok := civilDay(s[:10])
	hour, minute, sec := twoDigits(s[11:13]), twoDigits(s[14:16]), twoDigits(s[17:19])
	if !ok || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	rest := s[19:]
	nsec := 0
	if rest[0] == '.' {
		j := 1
		for ; rest[j] >= '0' && rest[j] <= '9'; j++ {
			nsec = nsec*10 + int(rest[j]-'0')
		}
		for range 10 - j { // j-1 digits read, of 9
			nsec *= 10
		}
		rest = rest[j:]
	}
	offset := 0 // seconds east of UTC
	if rest != "Z" {
		offset = (twoDigits(rest[1:3])*60 + twoDigits(rest[4:6])) * 60
		if rest[0] == '-' {
			offset = -offset
		}
	}
	unix := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec-offset)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

// dateUTC is time.Parse(time.DateOnly, s) for a 10-byte s with '-' at 4
// and 7; false where time.Parse fails.
func dateUTC(s string) (time.Time, bool) {
	if !isDigits(s[:4]) || !isDigits(s[5:7]) || !isDigits(s[8:]) {
		return time.Time{}, false
	}
	year, month, day, ok := civilDay(s)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(daysFromCivil(year, month, day)*86400, 0).UTC(), true
}

// civilDay reads YYYY-MM-DD, its digits already checked, and reports
// whether the day exists (year 0000 included, as time.Parse has it).
func civilDay(s string) (year, month, day int, ok bool) {
	year = twoDigits(s[0:2])*100 + twoDigits(s[2:4])
	month, day = twoDigits(s[5:7]), twoDigits(s[8:10])
	if month < 1 || month > 12 || day < 1 {
		return 0, 0, 0, false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return year, month, day, day <= days
}

// appendMoment writes a moment as t.AppendFormat(buf, time.RFC3339Nano)
// does, for the moments of valid terms (in UTC, years 0001 to 9999)
// without its general formatting; anything else goes through AppendFormat.
// FuzzAppendMoment holds the two to the same bytes.
func appendMoment(buf []byte, t time.Time) []byte {
	sec := t.Unix()
	if t.Location() != time.UTC || sec < unixYear1 || sec >= unixYear10000 {
		return t.AppendFormat(buf, time.RFC3339Nano)
	}
	days, clock := sec/86400, int(sec%86400)
	if clock < 0 {
		days, clock = days-1, clock+86400
	}
	year, month, day := civilFromDays(days)
	buf = appendTwoDigits(appendTwoDigits(buf, year/100), year%100)
	buf = appendTwoDigits(append(buf, '-'), month)
	buf = appendTwoDigits(append(buf, '-'), day)
	buf = appendTwoDigits(append(buf, 'T'), clock/3600)
	buf = appendTwoDigits(append(buf, ':'), clock/60%60)
	buf = appendTwoDigits(append(buf, ':'), clock%60)
	if ns := t.Nanosecond(); ns != 0 {
		// Nine digits, less the trailing zeros.
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i > 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := len(frac)
		for frac[n-1] == '0' {
			n--
		}
		buf = append(buf, frac[:n]...)
	}
	return append(buf, 'Z')
}

// daysFromCivil is the number of days from 1970-01-01 to a proleptic
// Gregorian date of years 0000 to 9999: civilFromDays undone.
func daysFromCivil(year, month, day int) int64 {
	if month <= 2 {
		year-- // the year counted from March: -1 for January 0000, which the eras below allow
	}
	era := (year+400)/400 - 1 // floor(year / 400) for year ≥ -400
	yoe := year - era*400
	mp := (month + 9) % 12 // month from March
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097+doe) - 719468
}

// civilFromDays is the proleptic Gregorian date days after 1970-01-01, for
// days from year 0001 on (H. Hinnant, "chrono-Compatible Low-Level Date
// Algorithms": years counted from March, in 400-year eras).
func civilFromDays(days int64) (year, month, day int) {
	z := int(days) + 719468 // days since 0000-03-01: positive from year 1 on
	era := z / 146097
	doe := z - era*146097                                  // day of the era, 0 to 146096
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // year of the era, 0 to 399
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // day of the year from March 1st
	mp := (5*doy + 2) / 153                                // month from March, 0 to 11
	year, day = yoe+era*400, doy-(153*mp+2)/5+1
	if mp < 10 {
		month = mp + 3
	} else {
		month, year = mp-9, year+1
	}
	return year, month, day
}

func appendTwoDigits(buf []byte, n int) []byte { return append(buf, byte('0'+n/10), byte('0'+n%10)) }

func twoDigits(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
