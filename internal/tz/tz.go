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
// areas. time.LoadLocation alone would also read Local and, on some
// systems, tzdata's own files (localtime, posixrules, Factory): the
// server's zone or its internals, never a person's.
func Load(name string) (*time.Location, error) {
	area, _, ok := strings.Cut(name, "/")
	if name != "UTC" && (!ok || !areas[area]) {
		return nil, ErrNotAZone
	}
	return time.LoadLocation(name)
}
