// Package tz loads the time zones people choose: IANA names such as
// Europe/Paris, and UTC.
package tz

import (
	"errors"
	"strings"
	"time"
)

// areas are tzdata's regions: a zone a person lives in is Area/Location.
var areas = map[string]bool{"Africa": true, "America": true, "Antarctica": true, "Arctic": true, "Asia": true,
	"Atlantic": true, "Australia": true, "Europe": true, "Indian": true, "Pacific": true, "Etc": true}

// ErrNotAZone is a name that is no IANA zone a person can be in.
var ErrNotAZone = errors.New("not an IANA time zone name")

// Load loads name if it is UTC or Area/Location in one of tzdata's
// areas, each part of the name as tzdata spells one. time.LoadLocation
// alone would also read Local and, on some systems, tzdata's own files
// (localtime, posixrules, Factory): the server's zone or its internals,
// never a person's; and it reads a name from the system's files as a
// path, so that Europe/./Paris or Europe//Paris would be taken there, and
// kept as a person's zone, which tzdata built into the program (a machine
// without the system's files) has not.
func Load(name string) (*time.Location, error) {
	area, location, ok := strings.Cut(name, "/")
	if name != "UTC" && (!ok || !areas[area] || !spelled(location)) {
		return nil, ErrNotAZone
	}
	return time.LoadLocation(name)
}

// spelled reports whether each /-separated part of a zone's location is
// as tzdata spells one: letters, digits, _, + and -, not empty, and so
// neither "." nor "..".
func spelled(location string) bool {
	for part := range strings.SplitSeq(location, "/") {
		if part == "" {
			return false
		}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '+' || r == '-') {
				return false
			}
		}
	}
	return true
}
