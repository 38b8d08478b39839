package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// signupData is the sign-up page: the account's name and slug as typed.
type signupData struct {
	Name, Slug string
	Errors     []string // every refusal of the form (its fields', all at once)
	Verified   bool     // the person's email is verified: they may own an account
}

// signupShow offers a signed-in person to create an account they own. A
// name in the query (?name=) fills the slug it suggests.
func (d *Dashboard) signupShow(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	name := c.Query("name")
	return d.signupPage(c, v, signupData{Name: name, Slug: app.SuggestSlug(name)})
}

func (d *Dashboard) signupPage(c *fiber.Ctx, v *viewer, data signupData) error {
	data.Verified = v.user.EmailVerified
	return d.renderPage(c, "signup", &page{Title: d.words(c, v).T("rooms.create_account"), Data: data}, v)
}
