package dashboard

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/internal/tz"
	"github.com/taasky/taasky/negotiation"
)

// say is err as a page tells its reader: an *app.Error in the reader's
// language (its English message where the catalog has no words for it),
// anything else as "internal error" in words.
func (d *Dashboard) say(c *fiber.Ctx, v *viewer, err error) string {
	loc := time.UTC
	if v != nil {
		loc = v.loc()
	}
	return sayRefusal(d.words(c, v), loc, err)
}

// sayRefusal says err in w's language, its moments (app.Moment) in loc.
func sayRefusal(w *locale.Printer, loc *time.Location, err error) string {
	if err == nil {
		return ""
	}
	e, ok := errors.AsType[*app.Error](err)
	if !ok {
		return w.T("error.internal")
	}
	words := e.Words
	words.Args = slices.Clone(words.Args)
	for i, a := range words.Args {
		if m, ok := a.(app.Moment); ok {
			words.Args[i] = w.Moment(time.Time(m), loc)
		}
	}
	return w.Refusal(e.Message, words)
}

// zoneOr is the named zone, or or when the name is empty or unknown.
func zoneOr(name string, or *time.Location) *time.Location {
	if loc, err := tz.Load(name); err == nil {
		return loc
	}
	return or
}

// refusal is one of the dashboard's own refusals: its words are the
// catalog's key and args, its message their English.
func refusal(code app.ErrorCode, key locale.Key, args ...any) *app.Error {
	return &app.Error{Code: code, Message: locale.English().T(key, args...),
		Words: negotiation.Words{Key: string(key), Args: args}}
}

// refusedField is the form field a refusal is about: its message's first
// word before ": " ("email: … is already a member" is about email), or ""
// when it names none.
func refusedField(err error) string {
	field, _, ok := strings.Cut(app.ErrorMessageOf(err), ": ")
	if !ok || strings.ContainsAny(field, " .") {
		return ""
	}
	return field
}
