package locale

import (
	"strings"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// Limit writes one of the reader's own limits (only they ever see it) in
// their language: a time range's bounds as moments in loc (nil: UTC), a
// date's as days, yes/no in words, amounts as the card writes them
// (Money); whole numbers and enum values as declared.
func (p *Printer) Limit(lim negotiation.Limit, loc *time.Location) string {
	switch {
	case lim.OneOf != nil:
		return p.T("limit.one_of", strings.Join(lim.OneOf, ", "))
	case lim.Equals != nil:
		if *lim.Equals {
			return p.T("limit.must_be_yes")
		}
		return p.T("limit.must_be_no")
	}
	lo, hi := Key("limit.at_least"), Key("limit.at_most")
	if t := lim.Field.Type; t == negotiation.TypeTimerange || t == negotiation.TypeDate {
		lo, hi = "limit.not_before", "limit.not_after" // "at least Sat 5 Dec" is no way to say a day
	}
	var parts []string
	if lim.Min != nil {
		parts = append(parts, p.T(lo, p.bound(lim.Field, lim.Min, loc)))
	}
	if lim.Max != nil {
		parts = append(parts, p.T(hi, p.bound(lim.Field, lim.Max, loc)))
	}
	return strings.Join(parts, "; ")
}

// bound writes a limit's value: a time range's bound is a moment (in
// Start), a date's a day.
func (p *Printer) bound(f negotiation.Field, v *negotiation.Value, loc *time.Location) string {
	switch f.Type {
	case negotiation.TypeTimerange:
		return p.moment(v.Start, loc, p.dates.writeExact) // declared to the second, maybe
	case negotiation.TypeDate:
		return p.Day(v.Start)
	case negotiation.TypeMoney:
		return p.amount(v)
	}
	return negotiation.FormatBound(f, v)
}
