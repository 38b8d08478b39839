package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// onetapData is the one-tap page: the card a link is bound to, and what
// happened to it.
type onetapData struct {
	T       *app.OneTap
	Token   string
	Message string        // the answer just given, or why it was refused
	Done    *app.Decision // what the answer just given did
}

// onetapShow shows the card behind a one-tap link. It changes nothing:
// mail scanners open links; only the buttons (a POST) answer.
func (d *Dashboard) onetapShow(c *fiber.Ctx) error {
	token := c.Params("token")
	t, err := d.rooms.OneTapCard(c.UserContext(), token)
	if err != nil {
		return d.fail(c, err)
	}
	return d.renderPage(c, "onetap", &page{Title: confirmTitle(d.readerWords(c, t.Lang), t.Title), Zone: t.TimeZone.String(),
		Data: onetapData{T: t, Token: token}}, nil)
}

// confirmTitle is the one-tap page's title: what is to be confirmed.
func confirmTitle(w *locale.Printer, title string) string {
	if title == "" {
		return w.T("onetap.title_untitled")
	}
	return w.T("onetap.title", title)
}
