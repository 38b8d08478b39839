package negotiation

import (
	"strings"
	"testing"
	"time"
)

func TestFormatValue(t *testing.T) {
	s := mustSchema(t, allTypes)
	terms := mustTerms(t, s, `{"topic":"Contract, v2","qty":-42,"ok":false,"day":"2026-12-24",`+
		`"when":[{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T10:30:00Z"},{"start":"2026-12-03T22:30:00Z","end":"2026-12-04T01:00:00Z"},{"start":"2026-12-03T22:30:00Z","end":"2026-12-03T23:30:00Z"}],`+
		`"fee":{"amount":"1500","currency":"JPY"},"place":"video"}`)
	cet := time.FixedZone("CET", 3600)
	field := func(name string) Field { f, _ := s.Field(name); return f }
	value := func(name string, i int) *Value { v, _ := terms.Values(name); return &v[i] }
	cases := []struct {
		name string
		i    int
		loc  *time.Location
		want string
	}{
		{"topic", 0, time.UTC, "Contract, v2"},
		{"qty", 0, time.UTC, "-42"},
		{"ok", 0, time.UTC, "no"},
		{"place", 0, time.UTC, "video"},
		{"fee", 0, time.UTC, "1500 JPY"},
		// A date is a day, the same in every zone.
		{"day", 0, time.UTC, "Thu 24 Dec 2026"},
		{"day", 0, time.FixedZone("HST", -10*3600), "Thu 24 Dec 2026"},
		{"when", 0, time.UTC, "Thu 3 Dec 2026, 09:00–10:30 (UTC)"},
		{"when", 0, time.FixedZone("UTC", 0), "Thu 3 Dec 2026, 09:00–10:30 (UTC)"},
		{"when", 0, cet, "Thu 3 Dec 2026, 10:00–11:30 (CET, UTC+01:00)"},
		{"when", 1, time.UTC, "Thu 3 Dec 2026 22:30 – Fri 4 Dec 2026 01:00 (UTC)"},
		// One day in UTC, two in the viewer's zone: the viewer's days count.
		{"when", 2, time.UTC, "Thu 3 Dec 2026, 22:30–23:30 (UTC)"},
		{"when", 2, cet, "Thu 3 Dec 2026 23:30 – Fri 4 Dec 2026 00:30 (CET, UTC+01:00)"},
		{"when", 2, time.FixedZone("NPT", 5*3600+45*60), "Fri 4 Dec 2026, 04:15–05:15 (NPT, UTC+05:45)"},
	}
	for _, c := range cases {
		if got := FormatValue(field(c.name), value(c.name, c.i), c.loc); got != c.want {
			t.Errorf("%s[%d] in %s: %q, want %q", c.name, c.i, c.loc, got, c.want)
		}
	}
	ok := Value{Bool: true}
	if got := FormatValue(field("ok"), &ok, time.UTC); got != "yes" {
		t.Errorf("true: %q", got)
	}
	vals, _ := terms.Values("when")
	if got := FormatValues(field("when"), vals[:2], time.UTC); got != "Thu 3 Dec 2026, 09:00–10:30 (UTC); Thu 3 Dec 2026 22:30 – Fri 4 Dec 2026 01:00 (UTC)" {
		t.Errorf("FormatValues: %q", got)
	}
	// Amounts keep exactly their currency's digits.
	for _, c := range []struct{ amount, currency, want string }{
		{"0.5", "EUR", "0.50 EUR"}, {"1500", "EUR", "1500.00 EUR"}, {"1.5", "BHD", "1.500 BHD"},
		{"7", "CLF", "7.0000 CLF"}, {"999999999999999999.99", "USD", "999999999999999999.99 USD"},
	} {
		terms := mustTerms(t, s, `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","when":[{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"}],"place":"office",`+
			`"fee":{"amount":"`+c.amount+`","currency":"`+c.currency+`"}}`)
		v, _ := terms.Values("fee")
		if got := FormatValue(field("fee"), &v[0], time.UTC); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.amount, c.currency, got, c.want)
		}
	}
	// Plain text, as declared: a bool and a timerange written for a machine.
	okField, whenField := field("ok"), field("when")
	if got := string(okField.appendValueText(nil, &ok)); got != "true" {
		t.Errorf("plain bool: %q", got)
	}
	if got := string(whenField.appendValueText(nil, value("when", 0))); got != "2026-12-03T09:00:00Z/2026-12-03T10:30:00Z" {
		t.Errorf("plain timerange: %q", got)
	}
}

// TestFormatValueInANamelessZone documents a bug: a zone without a name but
// with an offset (time.FixedZone("", 3600)) is labelled "UTC" while the
// hours are written at +01:00.
func TestFormatValueInANamelessZone(t *testing.T) {
	s := mustSchema(t, []byte(`{"t":{"type":"timerange","label":"T"}}`))
	terms := mustTerms(t, s, `{"t":{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T10:00:00Z"}}`)
	f, _ := s.Field("t")
	v, _ := terms.Values("t")
	got := FormatValue(f, &v[0], time.FixedZone("", 3600))
	if want := "Thu 3 Dec 2026, 10:00–11:00 (UTC+01:00)"; got != want && strings.Contains(got, "(UTC)") {
		t.Fatalf("%q, want the offset (e.g. %q)", got, want)
	}
}

// TestFormatValueAcrossAClockChange: a range whose ends are at different
// offsets of the viewer's zone gives each end its offset and names the
// zone once, so that an hour across the autumn change is not written
// "01:30–01:30" nor an end in spring at the start's offset; a range at one
// offset is written as before.
func TestFormatValueAcrossAClockChange(t *testing.T) {
	s := mustSchema(t, []byte(`{"t":{"type":"timerange","label":"T"}}`))
	f, _ := s.Field("t")
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		start, end string
		loc        *time.Location
		want       string
	}{
		// Paris: forward at 01:00Z on 29 Mar 2026, back at 01:00Z on 25 Oct 2026.
		{"2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z", paris, "Sun 29 Mar 2026, 01:30 UTC+01:00 – 03:30 UTC+02:00 (Europe/Paris)"},
		{"2026-10-25T00:45:00Z", "2026-10-25T01:15:00Z", paris, "Sun 25 Oct 2026, 02:45 UTC+02:00 – 02:15 UTC+01:00 (Europe/Paris)"},
		// New York: forward at 07:00Z on 8 Mar 2026, back at 06:00Z on 1 Nov 2026.
		{"2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z", ny, "Sun 8 Mar 2026, 01:30 UTC-05:00 – 03:30 UTC-04:00 (America/New_York)"},
		{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", ny, "Sun 1 Nov 2026, 01:30 UTC-04:00 – 01:30 UTC-05:00 (America/New_York)"},
		{"2026-11-01T03:30:00Z", "2026-11-01T06:30:00Z", ny, "Sat 31 Oct 2026 23:30 UTC-04:00 – Sun 1 Nov 2026 01:30 UTC-05:00 (America/New_York)"},
		// One offset: unchanged.
		{"2026-11-01T06:00:00Z", "2026-11-01T06:45:00Z", ny, "Sun 1 Nov 2026, 01:00–01:45 (America/New_York, UTC-05:00)"},
		{"2026-10-25T01:15:00Z", "2026-10-25T02:00:00Z", paris, "Sun 25 Oct 2026, 02:15–03:00 (Europe/Paris, UTC+01:00)"},
		{"2026-12-03T22:30:00Z", "2026-12-04T01:00:00Z", paris, "Thu 3 Dec 2026 23:30 – Fri 4 Dec 2026 02:00 (Europe/Paris, UTC+01:00)"},
		{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", time.UTC, "Sun 1 Nov 2026, 05:30–06:30 (UTC)"},
	} {
		terms := mustTerms(t, s, `{"t":{"start":"`+c.start+`","end":"`+c.end+`"}}`)
		v, _ := terms.Values("t")
		if got := FormatValue(f, &v[0], c.loc); got != c.want {
			t.Errorf("%s–%s in %s:\n got %q\nwant %q", c.start, c.end, c.loc, got, c.want)
		}
	}
}
