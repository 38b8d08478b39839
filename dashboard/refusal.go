package dashboard

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

// say is err as a page tells its reader: an *app.Error in the reader's
// language (its English message where the catalog has no words for it),
// anything else as "internal error" in words.
func (d *Dashboard) say(c *fiber.Ctx, v *viewer, err error) string {
	return sayRefusal(d.words(c, v), err)
}

func sayRefusal(w *locale.Printer, err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*app.Error](err); ok {
		return w.Refusal(e.Message, e.Words)
	}
	return w.T("error.internal")
}

// refusal is one of the dashboard's own refusals: its words are the
// catalog's key and args, its message their English.
func refusal(code app.ErrorCode, key locale.Key, args ...any) *app.Error {
	return &app.Error{Code: code, Message: locale.English().T(key, args...),
		Words: negotiation.Words{Key: string(key), Args: args}}
}
