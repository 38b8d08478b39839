package dashboard

import (
	"io"

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
	release, ok := d.downloads.take(v.user.ID)
	if !ok {
		return d.downloadBusy(c)
	}
	ctx, cancel := longContext(c)
	defer cancel()
	return d.sendJSONSpooled(c, "taasky-my-data.json", release, func(w io.Writer) error {
		return d.rooms.WriteMemberData(ctx, v.user.ID, w)
	})
}
