package locale

import (
	"testing"
	"time"
)

func dstAt(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func dstZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestRangeAcrossAClockChange: a range whose end is at another offset than
// its start gives each end its offset, in every language, so that an hour
// across the autumn change is not written "01:30–01:30" nor an end in
// spring at the start's offset; a range at one offset is written as it
// always was, the zone and its offset once.
func TestRangeAcrossAClockChange(t *testing.T) {
	paris, ny := dstZone(t, "Europe/Paris"), dstZone(t, "America/New_York")
	en := NewPrinter("en")
	for _, c := range []struct {
		start, end string
		loc        *time.Location
		want       string
	}{
		// Paris goes forward at 01:00Z on 29 Mar 2026 (02:00 CET is 03:00 CEST)
		// and back at 01:00Z on 25 Oct 2026 (03:00 CEST is 02:00 CET).
		{"2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z", paris, "Sun 29 Mar 2026, 01:30 UTC+01:00 – 03:30 UTC+02:00 (Europe/Paris)"},
		{"2026-10-25T00:45:00Z", "2026-10-25T01:15:00Z", paris, "Sun 25 Oct 2026, 02:45 UTC+02:00 – 02:15 UTC+01:00 (Europe/Paris)"},
		{"2026-10-25T00:15:00Z", "2026-10-25T01:15:00Z", paris, "Sun 25 Oct 2026, 02:15 UTC+02:00 – 02:15 UTC+01:00 (Europe/Paris)"},
		// New York goes forward at 07:00Z on 8 Mar 2026 and back at 06:00Z on 1 Nov 2026.
		{"2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z", ny, "Sun 8 Mar 2026, 01:30 UTC-05:00 – 03:30 UTC-04:00 (America/New_York)"},
		{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", ny, "Sun 1 Nov 2026, 01:30 UTC-04:00 – 01:30 UTC-05:00 (America/New_York)"},
		// Across a change and midnight: both dates, each time with its offset.
		{"2026-11-01T03:30:00Z", "2026-11-01T06:30:00Z", ny, "Sat 31 Oct 2026, 23:30 UTC-04:00 – Sun 1 Nov 2026, 01:30 UTC-05:00 (America/New_York)"},
		// At one offset, on a day of a change or not: as before, byte for byte.
		{"2026-11-01T05:00:00Z", "2026-11-01T05:45:00Z", ny, "Sun 1 Nov 2026, 01:00–01:45 (America/New_York, UTC-04:00)"},
		{"2026-11-01T06:00:00Z", "2026-11-01T06:45:00Z", ny, "Sun 1 Nov 2026, 01:00–01:45 (America/New_York, UTC-05:00)"},
		{"2026-10-25T01:15:00Z", "2026-10-25T02:00:00Z", paris, "Sun 25 Oct 2026, 02:15–03:00 (Europe/Paris, UTC+01:00)"},
		{"2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z", paris, "Sun 29 Mar 2026, 03:00–04:00 (Europe/Paris, UTC+02:00)"},
		{"2026-10-14T10:00:00Z", "2026-10-14T10:30:00Z", paris, "Wed 14 Oct 2026, 12:00–12:30 (Europe/Paris, UTC+02:00)"},
		{"2026-12-03T22:30:00Z", "2026-12-04T01:00:00Z", paris, "Thu 3 Dec 2026, 23:30 – Fri 4 Dec 2026, 02:00 (Europe/Paris, UTC+01:00)"},
		{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", nil, "Sun 1 Nov 2026, 05:30–06:30 (UTC)"},
		{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", time.FixedZone("", -4*3600), "Sun 1 Nov 2026, 01:30–02:30 (UTC-04:00)"},
	} {
		if got := en.Range(dstAt(c.start), dstAt(c.end), c.loc); got != c.want {
			t.Errorf("%s–%s in %v:\n got %q\nwant %q", c.start, c.end, c.loc, got, c.want)
		}
	}
	// Every language: its own date, the offsets and zone as English has them.
	start, end := dstAt("2026-11-01T05:30:00Z"), dstAt("2026-11-01T06:30:00Z")
	for tag, want := range map[string]string{
		"en": "Sun 1 Nov 2026, 01:30 UTC-04:00 – 01:30 UTC-05:00 (America/New_York)",
		"de": "So., 1. Nov. 2026, 01:30 UTC-04:00 – 01:30 UTC-05:00 (America/New_York)",
		"fr": "dim. 1 nov. 2026, 01:30 UTC-04:00 – 01:30 UTC-05:00 (America/New_York)",
		"es": "dom, 1 nov 2026, 1:30 UTC-04:00 – 1:30 UTC-05:00 (America/New_York)",
		"ja": "2026年11月1日(日) 1:30 UTC-04:00 – 1:30 UTC-05:00 (America/New_York)",
	} {
		if got := NewPrinter(tag).Range(start, end, ny); got != want {
			t.Errorf("%s: got %q, want %q", tag, got, want)
		}
	}
	if got, want := NewPrinter("ja").Range(dstAt("2026-03-28T23:30:00Z"), dstAt("2026-03-29T01:30:00Z"), paris),
		"2026年3月29日(日) 0:30 UTC+01:00 – 3:30 UTC+02:00 (Europe/Paris)"; got != want {
		t.Errorf("ja: got %q, want %q", got, want)
	}
	if got, want := NewPrinter("de").Range(dstAt("2026-03-28T22:30:00Z"), dstAt("2026-03-29T01:30:00Z"), paris),
		"Sa., 28. März 2026, 23:30 UTC+01:00 – So., 29. März 2026, 03:30 UTC+02:00 (Europe/Paris)"; got != want {
		t.Errorf("de: got %q, want %q", got, want)
	}
	// A reader shown an offset as a guess is shown a zone whose clocks do
	// not change: one offset for both ends, and UTC beside.
	if got, want := en.RangeWithUTC(dstAt("2026-03-29T00:30:00Z"), dstAt("2026-03-29T01:30:00Z"), paris),
		"Sun 29 Mar 2026, 01:30–02:30 (UTC+01:00) · 00:30–01:30 UTC"; got != want {
		t.Errorf("RangeWithUTC: got %q, want %q", got, want)
	}
}

// TestMomentInARepeatedHour: a wall time read twice in its zone (the hour
// the clocks go back) names its offset, so that the two moments it may be
// are told apart; any other moment names the zone alone, as before.
func TestMomentInARepeatedHour(t *testing.T) {
	paris, ny := dstZone(t, "Europe/Paris"), dstZone(t, "America/New_York")
	en := NewPrinter("en")
	for _, c := range []struct {
		at   string
		loc  *time.Location
		want string
	}{
		{"2026-11-01T05:30:00Z", ny, "Sun 1 Nov 2026, 01:30 (America/New_York, UTC-04:00)"},
		{"2026-11-01T06:30:00Z", ny, "Sun 1 Nov 2026, 01:30 (America/New_York, UTC-05:00)"},
		{"2026-11-01T05:00:00Z", ny, "Sun 1 Nov 2026, 01:00 (America/New_York, UTC-04:00)"},
		{"2026-11-01T06:00:00Z", ny, "Sun 1 Nov 2026, 01:00 (America/New_York, UTC-05:00)"},
		{"2026-11-01T06:59:59Z", ny, "Sun 1 Nov 2026, 01:59 (America/New_York, UTC-05:00)"},
		{"2026-10-25T00:30:00Z", paris, "Sun 25 Oct 2026, 02:30 (Europe/Paris, UTC+02:00)"},
		{"2026-10-25T01:30:00Z", paris, "Sun 25 Oct 2026, 02:30 (Europe/Paris, UTC+01:00)"},
		// Just outside the repeated hour, and around the spring change
		// (whose skipped hour no moment is in): the zone alone.
		{"2026-11-01T04:59:59Z", ny, "Sun 1 Nov 2026, 00:59 (America/New_York)"},
		{"2026-11-01T07:00:00Z", ny, "Sun 1 Nov 2026, 02:00 (America/New_York)"},
		{"2026-10-24T23:59:00Z", paris, "Sun 25 Oct 2026, 01:59 (Europe/Paris)"},
		{"2026-10-25T02:00:00Z", paris, "Sun 25 Oct 2026, 03:00 (Europe/Paris)"},
		{"2026-03-29T00:59:00Z", paris, "Sun 29 Mar 2026, 01:59 (Europe/Paris)"},
		{"2026-03-29T01:00:00Z", paris, "Sun 29 Mar 2026, 03:00 (Europe/Paris)"},
		{"2026-03-08T06:59:00Z", ny, "Sun 8 Mar 2026, 01:59 (America/New_York)"},
		{"2026-03-08T07:00:00Z", ny, "Sun 8 Mar 2026, 03:00 (America/New_York)"},
		{"2026-10-26T10:00:00Z", paris, "Mon 26 Oct 2026, 11:00 (Europe/Paris)"},
		{"2026-11-01T05:30:00Z", nil, "Sun 1 Nov 2026, 05:30 (UTC)"},
	} {
		if got := en.Moment(dstAt(c.at), c.loc); got != c.want {
			t.Errorf("%s in %v:\n got %q\nwant %q", c.at, c.loc, got, c.want)
		}
	}
	if got, want := NewPrinter("fr").Moment(dstAt("2026-10-25T01:30:00Z"), paris), "dim. 25 oct. 2026, 02:30 (Europe/Paris, UTC+01:00)"; got != want {
		t.Errorf("fr: got %q, want %q", got, want)
	}
}

// TestMomentInAnEtcGMTZone: tzdata's Etc/GMT+N zones are N hours behind
// UTC (POSIX signs: Etc/GMT+5 is UTC-05:00), so a moment in one names its
// offset too, or "(Etc/GMT+5)" reads as five hours ahead.
func TestMomentInAnEtcGMTZone(t *testing.T) {
	at := dstAt("2026-12-06T06:42:00Z")
	en := NewPrinter("en")
	for _, c := range []struct{ zone, want string }{
		{"Etc/GMT+5", "Sun 6 Dec 2026, 01:42 (Etc/GMT+5, UTC-05:00)"},
		{"Etc/GMT-14", "Sun 6 Dec 2026, 20:42 (Etc/GMT-14, UTC+14:00)"},
		{"Etc/GMT", "Sun 6 Dec 2026, 06:42 (Etc/GMT)"},
		{"Asia/Kolkata", "Sun 6 Dec 2026, 12:12 (Asia/Kolkata)"},
	} {
		if got := en.Moment(at, dstZone(t, c.zone)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.zone, got, c.want)
		}
	}
}

// TestHourAsCLDRWritesIt: Spanish and Japanese write the hour without its
// leading zero (CLDR 46's short time H:mm), the others with it (HH:mm);
// minutes and seconds keep theirs in every language.
func TestHourAsCLDRWritesIt(t *testing.T) {
	at := dstAt("2026-12-03T09:05:00Z")
	for tag, want := range map[string]string{
		"en": "Thu 3 Dec 2026, 09:05 (UTC)",
		"de": "Do., 3. Dez. 2026, 09:05 (UTC)",
		"fr": "jeu. 3 déc. 2026, 09:05 (UTC)",
		"es": "jue, 3 dic 2026, 9:05 (UTC)",
		"ja": "2026年12月3日(木) 9:05 (UTC)",
	} {
		if got := NewPrinter(tag).Moment(at, nil); got != want {
			t.Errorf("%s: got %q, want %q", tag, got, want)
		}
	}
	for tag, want := range map[string]string{
		"es": "jue, 3 dic 2026, 0:00:05.5–9:05 (UTC)",
		"ja": "2026年12月3日(木) 0:00:05.5–9:05 (UTC)",
		"de": "Do., 3. Dez. 2026, 00:00:05.5–09:05 (UTC)",
	} {
		if got := NewPrinter(tag).Range(dstAt("2026-12-03T00:00:05.5Z"), at, nil); got != want {
			t.Errorf("%s: got %q, want %q", tag, got, want)
		}
	}
}
