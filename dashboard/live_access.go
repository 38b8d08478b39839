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
// per change of a room. A stream also ends when its session does (its
// cookie's expiry). The page is told why, in its person's language, with
// what to do (goneEvent; app.js shows it, hides the page's live parts and
// stops listening).

// Why a stream ended for good.
const (
	goneSignedOut = "signed_out" // the session ended: sign in again
	goneRemoved   = "removed"    // the page's room or account is no longer theirs
)

// streamAccess is what a signed-in person's stream checks, and when.
type streamAccess struct {
	recheck <-chan struct{}
	check   func() (last string, ok bool)
	expires time.Time // the session's end
	gone    func(why string) string
}

// accessCheck says why a person lost the page's access (goneRemoved), or
// "" while they keep it; renew: the stream ends to be opened again at once
// (what it watches changed). err: it could not tell.
type accessCheck func(ctx context.Context, userID int64) (why string, renew bool, err error)

// accessRecheckWithin bounds a check's statements.
const accessRecheckWithin = 5 * time.Second

// watchAccess watches the access of the person of session s for a stream
// of page (its path); stop ends the watch.
func (d *Dashboard) watchAccess(c *fiber.Ctx, s *liveSession, page string, lost accessCheck) (acc *streamAccess, stop func()) {
	u := s.User
	recheck, stop := d.hub.watchUser(u.ID)
	prefs := []string{u.Language, u.OIDCLocale, strings.Clone(c.Get(fiber.HeaderAcceptLanguage))}
	acc = &streamAccess{recheck: recheck, expires: s.Session.ExpiresAt}
	acc.gone = func(why string) string { return goneEvent(locale.NewPrinter(prefs...), why, page) }
	acc.check = func() (string, bool) {
		ctx, cancel := context.WithTimeout(d.ctx, accessRecheckWithin)
		defer cancel()
		why, renew, err := d.accessLost(ctx, s, lost)
		switch {
		case err != nil: // ends without a word: opened again, it is checked
			d.log.Warn("live stream: access not checked", "user", u.ID, "err", err)
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

// listAccessLost: the person is no longer in one of the accounts (of
// ids, sorted) whose rooms the list shows; in another one too, the stream
// is renewed, to watch its rooms.
func (d *Dashboard) listAccessLost(ids []int64) accessCheck {
	return func(ctx context.Context, userID int64) (string, bool, error) {
		ms, err := d.accounts.Memberships(ctx, userID)
		if err != nil {
			return "", false, err
		}
		now := make([]int64, len(ms))
		for i, m := range ms {
			now[i] = m.AccountID
		}
		slices.Sort(now)
		for _, id := range ids {
			if _, found := slices.BinarySearch(now, id); !found {
				return goneRemoved, false, nil
			}
		}
		return "", !slices.Equal(now, ids), nil
	}
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
