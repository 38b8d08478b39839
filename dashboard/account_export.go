package dashboard

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"
)

// accountExport sends the account's export as a JSON file (owners and
// admins; the export is audited, so it is a POST).
func (d *Dashboard) accountExport(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	ctx, cancel := longContext(c)
	defer cancel()
	ex, err := d.rooms.ExportAccount(ctx, v.user.ID, slug)
	if err != nil {
		return d.fail(c, err)
	}
	return d.sendJSONFile(c, ex, "taasky-"+slug+"-export.json")
}

// sendJSONFile sends v as a JSON file to download, named name (a name of
// ours: letters, digits, dashes and dots only).
func (d *Dashboard) sendJSONFile(c *fiber.Ctx, v any, name string) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return d.fail(c, err)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	return c.Send(out)
}
