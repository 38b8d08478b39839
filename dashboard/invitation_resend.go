package dashboard

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// invitationResend mails a pending invitation again, with a new link.
func (d *Dashboard) invitationResend(c *fiber.Ctx) error {
	return d.invitationAct(c, d.accounts.ResendInvitation, "resent")
}

// invitationAct applies act to the invitation of the path for the viewer,
// and goes back to the members page saying done, or shows why not.
func (d *Dashboard) invitationAct(c *fiber.Ctx, act func(ctx context.Context, userID int64, slug string, id int64) error, done string) error {
	v, refused := d.requireViewer(c)
	if v == nil {
		return refused
	}
	slug := c.Params("slug")
	id, err := pathID(c, "id", "invitation")
	if err == nil {
		err = act(c.UserContext(), v.user.ID, slug, id)
	}
	if err != nil {
		return d.membersRefused(c, v, slug, err, membersData{})
	}
	return c.Redirect("/accounts/"+slug+"/members?done="+done, fiber.StatusSeeOther)
}

// pathID reads a positive id from the path, or says which is wrong.
func pathID(c *fiber.Ctx, param, what string) (int64, error) {
	id, err := c.ParamsInt(param)
	if err != nil || id <= 0 {
		key := locale.Key("error.no_member_named")
		if what == "invitation" {
			key = "error.no_invitation_named"
		}
		return 0, refusal(app.ErrNotFound, key, c.Params(param))
	}
	return int64(id), nil
}
