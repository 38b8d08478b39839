package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// invitationResend mails a pending invitation again, with a new link.
func (d *Dashboard) invitationResend(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	id, err := pathID(c, "id", "invitation")
	if err == nil {
		err = d.accounts.ResendInvitation(c.UserContext(), v.user.ID, slug, id)
	}
	if err != nil {
		return d.membersRefused(c, v, slug, err, membersData{})
	}
	return c.Redirect("/accounts/"+slug+"/members?done=resent", fiber.StatusSeeOther)
}

// pathID reads a positive id from the path, or says which is wrong.
func pathID(c *fiber.Ctx, param, what string) (int64, error) {
	id, err := c.ParamsInt(param)
	if err != nil || id <= 0 {
		return 0, app.Errorf(app.ErrNotFound, "%s: no %s %q", what, what, c.Params(param))
	}
	return int64(id), nil
}
