package dashboard

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// A signed-in person's live stream ends as soon as they lose what its page
// shows: removed from the account, a role that no longer sees the room,
// the room's seat handed to nobody, the account marked for deletion, their
// sessions ended (sign-out everywhere, a removal) or they erased, in
// whichever process it happened. Migration 00038's triggers notify
// taasky_access with the person's id when such a change commits; every
// process hears it on its one listener (app.AccessChanges) and wakes that
// person's streams (Hub.AccessChanged), each of which checks again (two
// statements) before it says anything more. A room change costs a stream
// nothing more: the database is read per change of a person's access, not
// per change of a room. When everyone's access may have changed (the
// listener reconnected, a notification may have been lost), each stream
// checks in a turn of its own within a second or two, a few at once
// (Hub.recheckDelay, recheckAtOnce), and tells of no change of its room
// until it did. A rooms list follows what it shows for the person's role:
// a lead's, every room of the account; a member's, the rooms of their own
// seats (Hub.watchList); another role renews it. A stream also ends when
// its session does (its cookie's expiry). The page is told why, in its person's language, with
// what to do (goneEvent; app.js shows it, hides the page's live parts and
// stops listening).

// Why a stream ended for good.
const (
	goneSignedOut = "signed_out" // the session ended: sign in again
	goneRemoved   = "removed"    // the page's room or account is no longer theirs
)

// streamAccess is what a signed-in person's stream checks, and when.
type streamAccess struct {
	recheck, recheckAll <-chan struct{}
	check               func() (last string, ok bool)
	expires             func() time.Duration // how long the session has left (liveSession.left)
	gone                func(why string) string
}

// accessCheck says why a person lost the page's access (goneRemoved), or
// "" while they keep it; renew: the stream ends to be opened again at once
// (what it watches changed). err: it could not tell.
type accessCheck func(ctx context.Context, userID int64) (why string, renew bool, err error)

// accessRecheckWithin bounds a check's statements.
const accessRecheckWithin = 5 * time.Second

// watchAccess watches the access of the person of session s for a stream
// of page (its path and query: where signing in again leads back to);
// stop ends the watch.
func (d *Dashboard) watchAccess(c *fiber.Ctx, s *liveSession, page string, lost accessCheck) (acc *streamAccess, stop func()) {
	u := s.User
	recheck, recheckAll, stop := d.hub.watchUser(u.ID)
	prefs := []string{u.Language, u.OIDCLocale, strings.Clone(c.Get(fiber.HeaderAcceptLanguage))}
	// The checks run while the stream is written, after the handler
	// returned: the request's id is kept, not c.
	logCtx := context.WithoutCancel(c.UserContext())
	acc = &streamAccess{recheck: recheck, recheckAll: recheckAll, expires: s.left}
	acc.gone = func(why string) string { return goneEvent(locale.NewPrinter(prefs...), why, page) }
	acc.check = func() (string, bool) {
		ctx, cancel := context.WithTimeout(d.ctx, accessRecheckWithin)
		defer cancel()
		why, renew, err := d.accessLost(ctx, s, lost)
		switch {
		case err != nil: // ends without a word: opened again, it is checked
			d.log.WarnContext(logCtx, "live stream: access not checked", "user", u.ID, "err", err)
			return "", false
		case why != "":
			return acc.gone(why), false
		case renew:
			return "event: change\ndata: changed\n\nretry: " + retryRenewed + "\n\n", false
		}
		return "", true
	}
	return acc, stop
}

// accessLost checks again what the person of session s may see: their
// session (ended, on another browser or everywhere, or they are erased:
// signed out), then the page's own check. The session is read as a
// request reads it (one statement; it may renew it), and whatever it
// says, the page's check goes on: a removal ends the person's sessions
// too, and "removed" says more.
func (d *Dashboard) accessLost(ctx context.Context, s *liveSession, lost accessCheck) (why string, renew bool, err error) {
	_, err = d.accounts.SessionUser(ctx, s.token)
	ended := app.ErrorCodeOf(err) == app.ErrNotFound
	if err != nil && !ended {
		return "", false, err
	}
	if why, renew, err = lost(ctx, s.User.ID); err != nil || why != "" {
		return why, false, err
	}
	if ended {
		return goneSignedOut, false, nil
	}
	return "", renew, nil
}

// roomAccessLost: the person no longer sees the room.
func (d *Dashboard) roomAccessLost(roomID int64) accessCheck {
	return func(ctx context.Context, userID int64) (string, bool, error) {
		err := d.rooms.SeesRoom(ctx, userID, roomID)
		if app.ErrorCodeOf(err) == app.ErrNotFound {
			return goneRemoved, false, nil
		}
		return "", false, err
	}
}

// listScope is what a person's rooms list shows (app's roomScope): every
// room of the accounts whole (sorted), the rooms of their own seats in
// the accounts own (sorted).
type listScope struct{ whole, own []int64 }

// listScopeOf is the list's scope for memberships ms.
func listScopeOf(ms []app.Membership) listScope {
	sc := listScope{whole: []int64{}, own: []int64{}}
	for _, m := range ms {
		if app.May(m.Role, app.ActSeeRoom, app.Colleagues) {
			sc.whole = append(sc.whole, m.AccountID)
		} else if app.May(m.Role, app.ActSeeRoom, app.Mine) {
			sc.own = append(sc.own, m.AccountID)
		}
	}
	slices.Sort(sc.whole)
	slices.Sort(sc.own)
	return sc
}

// listAccessLost: the person is no longer in one of the accounts whose
// rooms the list shows (sc); in another one too, or with another role in
// one, the stream is renewed, to watch what the list shows now (a lead
// demoted to member no longer hears of her colleagues' rooms).
func (d *Dashboard) listAccessLost(sc listScope) accessCheck {
	return func(ctx context.Context, userID int64) (string, bool, error) {
		ms, err := d.accounts.Memberships(ctx, userID)
		if err != nil {
			return "", false, err
		}
		now := listScopeOf(ms)
		for _, id := range slices.Concat(sc.whole, sc.own) {
			_, whole := slices.BinarySearch(now.whole, id)
			_, own := slices.BinarySearch(now.own, id)
			if !whole && !own {
				return goneRemoved, false, nil
			}
		}
		return "", !slices.Equal(now.whole, sc.whole) || !slices.Equal(now.own, sc.own), nil
	}
}

// pageOf is a stream's page: path, with the query's keys among keep that
// the stream was opened with (the page gives them in its data-live
// address: the room's side, the list's filter), for signing in again to
// lead back to the same page (goneEvent, then safeNext).
func pageOf(c *fiber.Ctx, path string, keep ...string) string {
	q := url.Values{}
	for _, k := range keep {
		if v := c.Query(k); v != "" {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// goneEvent is a stream's last message when its person lost its access:
// why, and what to do, in w's words (app.js shows them).
func goneEvent(w *locale.Printer, why, page string) string {
	say, label, link := locale.Key("stream18_live.removed"), locale.Key("stream18_live.your_rooms"), "/"
	if why == goneSignedOut {
		say, label, link = "stream18_live.signed_out", "signed_out.again", "/login?next="+url.QueryEscape(page)
	}
	data, _ := json.Marshal(struct {
		Why   string `json:"why"`
		Say   string `json:"say"`
		Link  string `json:"link"`
		Label string `json:"label"`
	}{why, w.T(say), link, w.T(label)})
	return "event: gone\ndata: " + string(data) + "\n\n"
}
