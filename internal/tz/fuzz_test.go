package tz

import (
	"regexp"
	"testing"
)

// tzdataName is how tzdata names a zone: UTC, or an area and a location,
// each part letters, digits and _ + - (America/Argentina/Buenos_Aires,
// Etc/GMT+5), never empty, never "." or "..".
var tzdataName = regexp.MustCompile(`^(UTC|[A-Z][a-z]+(/[A-Za-z0-9_+-]*[A-Za-z0-9_][A-Za-z0-9_+-]*)+)$`)

// FuzzLoad: a name Load takes is a zone's own name, as tzdata spells it,
// and the zone is that name: a name that only the server's files read
// (Europe/./Paris, Europe//Paris: a path, not a name) would be taken on
// one machine, stored as a person's zone, and refused on another that
// reads tzdata built into the program.
//
//	go test ./internal/tz -run XXX -fuzz FuzzLoad -fuzztime 5m -parallel 1
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"UTC", "Europe/Paris", "America/Argentina/Buenos_Aires", "Asia/Calcutta", "Etc/GMT+5", "", "Local",
		"localtime", "posixrules", "Factory", "EST5EDT", "Europe", "Europe/Nowhere", "Europe/../localtime", "/etc/localtime",
		"europe/paris", "Mars/Olympus", "Europe/./Paris", "Europe//Paris", "Europe/Paris/", "America/Argentina", "Etc/UTC",
		"Etc/GMT-14", "Europe/Paris\x00", "America/Indiana/./Knox", "Etc/./UTC"} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		loc, err := Load(name)
		if err != nil {
			if loc != nil {
				t.Fatalf("%q: refused (%v), yet %v", name, err, loc)
			}
			return
		}
		if loc == nil || loc.String() != name || !tzdataName.MatchString(name) {
			t.Fatalf("%q: taken as %v", name, loc)
		}
	})
}
