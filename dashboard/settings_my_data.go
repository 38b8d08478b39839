package dashboard

import (
	"github.com/gofiber/fiber/v2"
)

// settingsMyData sends the signed-in person their own data as a JSON file
// ("Download my data": app.MemberData): a POST from their settings page,
// as the account's export is, behind the strangers' per-address limit
// (it reads every room the person answers for).
func (d *Dashboard) settingsMyData(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	ctx, cancel := longContext(c)
	defer cancel()
	md, err := d.rooms.MemberData(ctx, v.user.ID)
	if err != nil {
		return d.fail(c, err)
	}
	return d.sendJSONFile(c, md, "taasky-my-data.json")
}
