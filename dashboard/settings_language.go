package dashboard

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// settingsLanguage sets the language Taasky speaks to the person in: one
// of the catalog's, or "" for their provider's locale or their browser's.
// A language Taasky has no words for is refused, and the setting keeps its
// value.
func (d *Dashboard) settingsLanguage(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	lang := c.FormValue("language")
	if lang != "" {
		var err error
		if lang, err = locale.Supported(lang); err != nil {
			var tags []string
			for _, l := range locale.Languages() {
				tags = append(tags, l.Tag)
			}
			return d.settingsRefused(c, v, refusal(app.ErrInvalid, "error.language_supported", strings.Join(tags, ", "), strings.TrimSpace(c.FormValue("language"))))
		}
	}
	if err := d.accounts.SetUserLanguage(c.UserContext(), v.user.ID, lang); err != nil {
		return d.settingsRefused(c, v, err)
	}
	return c.Redirect("/settings?done=language", fiber.StatusSeeOther)
}
