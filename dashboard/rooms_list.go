package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// roomsData is the rooms list page.
type roomsData struct {
	Rooms   []app.HumanSummary
	Filter  string
	Filters []filterLink
	Next    string
	First   bool // the first page
	// NoAccount: the viewer belongs to no account; the page offers sign-up.
	NoAccount bool
}

type filterLink struct {
	Value, Label string
	Current      bool
}

var roomFilters = []filterLink{{"", "All", false}, {"waiting", "Waiting for a human", false},
	{"live", "In progress", false}, {"agreed", "Agreed", false}, {"closed", "Closed", false}}

// roomsList is the home page: every room of the user's accounts, most
// urgent first, a page at a time. Signed out, it is the welcome page.
func (d *Dashboard) roomsList(c *fiber.Ctx) error {
	v, err := d.currentViewer(c)
	if err != nil {
		return d.fail(c, err)
	}
	if v == nil {
		return d.render(c, "welcome", "Taasky", nil, nil)
	}
	filter := c.Query("state")
	rooms, next, err := d.rooms.ListForHuman(c.UserContext(), v.user.ID, app.RoomFilter(filter), c.Query("after"))
	if err != nil {
		return d.fail(c, err)
	}
	data := roomsData{Rooms: rooms, Filter: filter, Next: next, First: c.Query("after") == ""}
	if len(rooms) == 0 && data.First {
		ms, err := d.accounts.Memberships(c.UserContext(), v.user.ID)
		if err != nil {
			return d.fail(c, err)
		}
		data.NoAccount = len(ms) == 0
	}
	for _, f := range roomFilters {
		f.Current = f.Value == filter
		data.Filters = append(data.Filters, f)
	}
	return d.renderPage(c, "rooms", &page{Title: "Your rooms", Live: "/events", Data: data}, v)
}
