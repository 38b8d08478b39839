package dashboard

import (
	"fmt"

	"github.com/gofiber/fiber/v2"
)

// seatMyData sends a person their seat's data as a JSON file ("Download
// my data": app.PersonData), posted from the page their personal link
// opens: the link's token is the only way in.
func (d *Dashboard) seatMyData(c *fiber.Ctx) error {
	ctx, cancel := longContext(c)
	defer cancel()
	pd, err := d.rooms.PersonData(ctx, c.Params("token"))
	if err != nil {
		return d.fail(c, err)
	}
	return d.sendJSONFile(c, pd, fmt.Sprintf("taasky-my-data-room-%d.json", pd.Room.ID))
}
