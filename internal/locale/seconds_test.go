package locale

import (
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestMomentsToTheSecond: a moment a party wrote (terms, limits) with
// seconds (or a fraction of one) is written with them, in every pattern
// that writes one: a range on one day, one across days, one across a
// clock change, the UTC beside a guessed zone, a limit's bound. Whole
// minutes stay HH:mm, and the service's moments (Moment: deadlines, when
// something happened) are to the minute.
func TestMomentsToTheSecond(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339Nano, s); return t }
	en, de := NewPrinter("en"), NewPrinter("de")
	schema, _, err := negotiation.ParseSchema([]byte(`{"when":{"type":"timerange","label":"When"}}`))
	if err != nil {
		t.Fatal(err)
	}
	limits, err := schema.ParseLimits([]byte(`{"when":{"min":"2026-12-03T09:00:30Z","max":"2026-12-03T18:00:00Z"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want string }{
		{en.Range(at("2026-12-03T09:00:30Z"), at("2026-12-03T09:00:50Z"), nil), "Thu 3 Dec 2026, 09:00:30–09:00:50 (UTC)"},
		{de.Range(at("2026-12-03T09:00:00.5Z"), at("2026-12-03T10:00:00Z"), nil), "Do., 3. Dez. 2026, 09:00:00.5–10:00 (UTC)"},
		{en.Range(at("2026-12-03T23:00:00Z"), at("2026-12-04T01:00:01Z"), nil), "Thu 3 Dec 2026, 23:00 – Fri 4 Dec 2026, 01:00:01 (UTC)"},
		{en.Range(at("2026-11-01T05:30:00Z"), at("2026-11-01T06:30:45Z"), ny), "Sun 1 Nov 2026, 01:30 UTC-04:00 – 01:30:45 UTC-05:00 (America/New_York)"},
		{en.RangeWithUTC(at("2026-12-07T08:00:00Z"), at("2026-12-07T08:30:15Z"), ny), "Mon 7 Dec 2026, 03:00–03:30:15 (UTC-05:00) · 08:00–08:30:15 UTC"},
		{en.Limit(limits.List()[0], nil), "not before Thu 3 Dec 2026, 09:00:30 (UTC); not after Thu 3 Dec 2026, 18:00 (UTC)"},
		{en.Range(at("2026-12-03T09:00:00Z"), at("2026-12-03T09:30:00Z"), nil), "Thu 3 Dec 2026, 09:00–09:30 (UTC)"},
		{en.Moment(at("2026-12-03T09:00:30.25Z"), nil), "Thu 3 Dec 2026, 09:00 (UTC)"},
		{en.MomentWithUTC(at("2026-12-03T09:00:30Z"), ny), "Thu 3 Dec 2026, 04:00 (UTC-05:00) · 09:00 UTC"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
