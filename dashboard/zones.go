package dashboard

import (
	"strings"

	"github.com/taasky/taasky/internal/locale"
)

//go:generate sh zones_list.sh

// zoneGroup is one region of the time-zone picker: an <optgroup>.
type zoneGroup struct {
	Key   locale.Key // the region's name: region.<Region>
	Zones []string
}

// zoneGroups are the IANA zones by region (the name's first part), UTC
// first on its own.
var zoneGroupList = func() []zoneGroup {
	groups := []zoneGroup{{Key: "region.utc", Zones: []string{"UTC"}}}
	for _, z := range ianaZones {
		region, _, _ := strings.Cut(z, "/")
		key := locale.Key("region." + strings.ToLower(region))
		if groups[len(groups)-1].Key != key {
			groups = append(groups, zoneGroup{Key: key})
		}
		g := &groups[len(groups)-1]
		g.Zones = append(g.Zones, z)
	}
	return groups
}()

func zoneGroups() []zoneGroup { return zoneGroupList }
