package dashboard

import (
	"time"

	"github.com/gofiber/fiber/v2"
)

// zoneTTL is how long a browser's zone is kept for a person without an
// account.
const zoneTTL = 365 * 24 * time.Hour

// zoneTell keeps the time zone a browser's script told (POST /zone,
// time_zone=Europe/Berlin) in an HttpOnly cookie, so that a person without
// an account reads every moment in it. The page asks once, when the
// request had no such cookie; an unknown zone is refused and the cookie
// left as it was. The same zone chosen in a page's picker (zonePick), a
// form sent with or without a script, comes with the page's address in
// next, where the person is sent back to read it in their choice.
func (d *Dashboard) zoneTell(c *fiber.Ctx) error {
	name := c.FormValue("time_zone")
	if _, err := loadZone(name); err != nil {
		return d.showError(c, fiber.StatusBadRequest, d.words(c, nil).T("zone.unknown", name))
	}
	d.setCookie(c, zoneCookie, name, zoneTTL)
	if next := c.FormValue("next"); next != "" {
		return c.Redirect(safeNext(next), fiber.StatusSeeOther)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// zonePick is the page's address for its zone picker (page.ZonePick) when
// nobody is signed in: a signed-in person chooses theirs in Settings.
func (d *Dashboard) zonePick(c *fiber.Ctx, path string) string {
	if d.signedIn(c) != nil {
		return ""
	}
	return path
}
