package negotiation

import (
	"strconv"
	"strings"
	"time"
)

// FormatValue writes a value for a person: moments in their time zone,
// amounts with their currency's digits, days with their weekday.
func FormatValue(f Field, v *Value, loc *time.Location) string {
	switch f.Type {
	case TypeTimerange:
		s, e := v.Start.In(loc), v.End.In(loc)
		zone := loc.String()
		_, off := s.Zone()
		if _, endOff := e.Zone(); endOff != off {
			return rangeAcrossAChange(s, e, zone)
		}
		switch {
		case off == 0 && (zone == "UTC" || zone == ""):
			zone = "UTC"
		case zone == "":
			zone = "UTC" + s.Format("-07:00")
		default:
			zone += ", UTC" + s.Format("-07:00")
		}
		if s.Format(time.DateOnly) == e.Format(time.DateOnly) {
			return s.Format("Mon 2 Jan 2006, 15:04") + "–" + e.Format("15:04") + " (" + zone + ")"
		}
		return s.Format("Mon 2 Jan 2006 15:04") + " – " + e.Format("Mon 2 Jan 2006 15:04") + " (" + zone + ")"
	case TypeDate:
		return v.Start.Format("Mon 2 Jan 2006")
	case TypeBool:
		if v.Bool {
			return "yes"
		}
		return "no"
	}
	return string(f.appendValueText(nil, v))
}

// rangeAcrossAChange writes a time range whose ends are at different
// offsets of zone (its clocks change in between): each end with its own
// offset and the zone named once, unless it has no name. One offset for
// both would write the hour from 05:30Z in New York on 1 Nov 2026 as
// "01:30–01:30".
func rangeAcrossAChange(s, e time.Time, zone string) string {
	var b string
	if s.Format(time.DateOnly) == e.Format(time.DateOnly) {
		b = s.Format("Mon 2 Jan 2006, 15:04") + " UTC" + s.Format("-07:00") + " – " + e.Format("15:04")
	} else {
		b = s.Format("Mon 2 Jan 2006 15:04") + " UTC" + s.Format("-07:00") + " – " + e.Format("Mon 2 Jan 2006 15:04")
	}
	b += " UTC" + e.Format("-07:00")
	if zone != "" && zone != "Local" {
		b += " (" + zone + ")"
	}
	return b
}

// FormatValues joins a field's values for a person.
func FormatValues(f Field, vals []Value, loc *time.Location) string {
	parts := make([]string, len(vals))
	for i := range vals {
		parts[i] = FormatValue(f, &vals[i], loc)
	}
	return strings.Join(parts, "; ")
}

// appendValueText writes a value plainly, as declared: int and money as
// numbers, text and dates as they are.
func (f *Field) appendValueText(buf []byte, v *Value) []byte {
	switch f.Type {
	case TypeInt:
		return strconv.AppendInt(buf, v.Int, 10)
	case TypeBool:
		return strconv.AppendBool(buf, v.Bool)
	case TypeMoney:
		digits, _ := MinorDigits(v.Currency)
		buf = append(buf, v.Amount.StringFixed(int32(digits))...)
		return append(append(buf, ' '), v.Currency...)
	case TypeTimerange:
		buf = v.Start.AppendFormat(buf, time.RFC3339Nano)
		buf = append(buf, '/')
		return v.End.AppendFormat(buf, time.RFC3339Nano)
	}
	return append(buf, v.Text...)
}
