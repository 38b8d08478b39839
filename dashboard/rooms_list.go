package dashboard

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
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
	// Deleting names the viewer's accounts that are being deleted.
	Deleting []string
}

type filterLink struct {
	Value   string
	Label   locale.Key
	Current bool
}

var roomFilters = []filterLink{{"", "rooms.filter_all", false}, {"waiting", "rooms.filter_waiting", false},
	{"live", "rooms.filter_live", false}, {"agreed", "rooms.filter_agreed", false}, {"closed", "rooms.filter_closed", false}}

// roomsList is the home page: every room of the user's accounts, most
// urgent first, a page at a time. Signed out, it is the welcome page.
func (d *Dashboard) roomsList(c *fiber.Ctx) error {
	v, err := d.currentViewer(c)
	if err != nil {
		return d.fail(c, err)
	}
	if v == nil {
		return d.render(c, "welcome", "", nil, nil)
	}
	filter := c.Query("state")
	rooms, next, err := d.rooms.ListForHuman(c.UserContext(), v.user.ID, app.RoomFilter(filter), c.Query("after"))
	if err != nil {
		return d.fail(c, err)
	}
	data := roomsData{Rooms: rooms, Filter: filter, Next: next, First: c.Query("after") == ""}
	if data.Deleting, err = d.accounts.DeletingAccounts(c.UserContext(), v.user.ID); err != nil {
		return d.fail(c, err)
	}
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
	// The stream knows the filter, for its sign-in link to lead back here.
	live := "/events"
	if filter != "" {
		live += "?" + url.Values{"state": {filter}}.Encode()
	}
	return d.renderPage(c, "rooms", &page{Title: d.words(c, v).T("rooms.heading"), Live: live, Data: data}, v)
}
