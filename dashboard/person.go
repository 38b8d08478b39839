package dashboard

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/internal/tz"
	"github.com/taasky/taasky/negotiation"
)

// A person without an agent answers from the browser: the invitation page
// (/i/{code}) seats them on their first tap, and their personal link
// (/p/{token}) brings them back; a cookie per room remembers the seat in
// this browser.

// personZone is the time zone a person's pages are shown in: a signed-in
// person's own setting, else the one their browser told (POST /zone, kept in an HttpOnly cookie); nil until it
// tells, which the app reads as the inviting human's zone (a better guess
// than UTC); told says whether it did.
func (d *Dashboard) personZone(c *fiber.Ctx) (loc *time.Location, told bool) {
	if u := d.signedIn(c); u != nil {
		if loc, err := loadZone(u.TimeZone); err == nil {
			return loc, true // a signed-in person's own setting
		}
	}
	if loc, err := loadZone(d.cookie(c, zoneCookie)); err == nil {
		return loc, true
	}
	return nil, false
}

// guessedZone is the zone a person's page is written in while their
// browser has not told theirs: the inviting human's. It may not be the
// reader's, so each moment is written at its offset (its name is the
// inviter's to keep) and in UTC beside it (the locale's ...WithUTC).
type guessedZone struct{ loc *time.Location }

// shownZone is the zone the templates write a person's moments in (when,
// value), given loc, the zone of the app's view (theirs once told, else
// the inviting human's): loc itself when their browser told it, or when
// the guess is UTC (nothing to write twice); else the guess, as a
// guessedZone.
func shownZone(loc *time.Location, told bool) any {
	if told || loc == nil || loc.String() == "UTC" {
		return loc
	}
	return guessedZone{loc}
}

// formZone is the zone a person's counter form starts in: theirs once
// their browser told it, else UTC (the inviting human's zone is written
// only as an offset: its name is not the reader's to see).
func formZone(loc *time.Location, told bool) *time.Location {
	if told && loc != nil {
		return loc
	}
	return time.UTC
}

// pageZone is the page's zone (its body's data-zone) for a zone the
// templates are given: a guess has none, so that the page's script tells
// the browser's whichever it is.
func pageZone(zone any) string {
	if loc, ok := zone.(*time.Location); ok && loc != nil {
		return loc.String()
	}
	return ""
}

// loadZone loads an IANA zone by name (internal/tz).
func loadZone(name string) (*time.Location, error) { return tz.Load(name) }

// seatNonceField carries the invitation page's nonce in each of its forms
// (app.PersonAnswer.Nonce): the same page's answer sent twice finds the
// seat the first took.
const seatNonceField = "seat_nonce"

// maxSeats is how many seats one browser remembers (the latest taken or
// opened first): one cookie of at most about 650 bytes, whatever the
// number of rooms. A cookie per room made every request of a person who
// answered some fifty invitations larger than the server reads (431, on
// every page of Taasky), and anyone could make a browser open fifty
// personal links of theirs.
const maxSeats = 10

// seatOf is the personal token this browser remembers for the room, ""
// if none.
func (d *Dashboard) seatOf(c *fiber.Ctx, roomID int64) string {
	room := strconv.FormatInt(roomID, 10) + ":"
	for _, e := range strings.Split(d.cookie(c, seatsCookie), ".") {
		if token, ok := strings.CutPrefix(e, room); ok {
			return token
		}
	}
	return ""
}

// rememberSeat makes this browser remember token as its seat in the room
// (first, before the others it remembers, at most maxSeats), so that the
// room's invitation page takes it there; the cookie's value is
// "room:token" entries separated by dots (a token has none).
func (d *Dashboard) rememberSeat(c *fiber.Ctx, roomID int64, token string) {
	room := strconv.FormatInt(roomID, 10) + ":"
	seats := []string{room + token}
	for _, e := range strings.Split(d.cookie(c, seatsCookie), ".") {
		if e != "" && !strings.HasPrefix(e, room) && len(seats) < maxSeats {
			seats = append(seats, e)
		}
	}
	if v := strings.Join(seats, "."); v != d.cookie(c, seatsCookie) {
		d.setCookie(c, seatsCookie, v, seatTTL)
	}
}

// personForm is the form of a person's page: the answer's fields.
type personForm struct {
	Verdict negotiation.Verdict
	Hash    negotiation.SubjectHash
	Email   string
	// Nonce is the invitation page's (app.PersonAnswer.Nonce).
	Nonce  string
	Values url.Values
}

func readPersonForm(c *fiber.Ctx) (personForm, error) {
	vals, err := url.ParseQuery(string(c.Body()))
	if err != nil {
		return personForm{}, refusal(app.ErrInvalid, "form.unreadable")
	}
	return personForm{Verdict: negotiation.Verdict(vals.Get("verdict")), Hash: negotiation.SubjectHash(vals.Get("subject_hash")),
		Email: vals.Get("email"), Nonce: vals.Get(seatNonceField), Values: vals}, nil
}

// answer turns the form into the service's answer, with the language it
// was read in (w) and the zone the browser told (loc, if told), which the
// person's mails speak in. For a counter it parses the terms form; fields
// holds the form as sent, with its errors in w's words, and ok is false
// when the form itself could not be read.
func (f personForm) answer(schema *negotiation.Schema, w *locale.Printer, loc *time.Location, told bool) (ans app.PersonAnswer, fields []form.Field, ok bool) {
	ans = app.PersonAnswer{Verdict: f.Verdict, Hash: f.Hash, Email: strings.TrimSpace(f.Email), Lang: w.Lang(), Nonce: f.Nonce}
	if told && loc != nil {
		ans.Zone = loc.String()
	}
	if f.Verdict != negotiation.VerdictCounter || schema == nil {
		return ans, nil, true
	}
	terms, fields, ok := form.Parse(schema, f.Values, w)
	ans.Terms = terms
	return ans, fields, ok
}

// grown is the counter form as sent with one more row for the repeated
// field its "add a row" button names (form.MoreField), when that is what
// was pressed: nothing is answered then.
func (f personForm) grown(schema *negotiation.Schema, w *locale.Printer) ([]form.Field, bool) {
	name := f.Values.Get(form.MoreField)
	if name == "" || f.Verdict != negotiation.VerdictCounter || schema == nil {
		return nil, false
	}
	_, fields, _ := form.Parse(schema, f.Values, w)
	return fields, form.Grow(fields, name)
}

// counterForm is the counter form for a person's page, prefilled with the
// first option on the card.
func counterForm(schema *negotiation.Schema, card *negotiation.Card, loc *time.Location, w *locale.Printer) []form.Field {
	if schema == nil {
		return nil
	}
	var first *negotiation.CardOption
	if card != nil && len(card.Options) > 0 {
		first = &card.Options[0]
	}
	return form.Prefill(schema, form.CardValues(first), loc, w)
}
