package dashboard

import (
	"context"

	"github.com/gofiber/fiber/v2"
)

// roomsEvents streams a "change" event whenever a room the user's list
// shows changes (every room of an account they lead, their own seats'
// where they are a member), for the rooms list to refresh itself (at most
// maxLiveStreams at once per person, with the rooms'), until they lose one
// of the accounts (live_access.go); one more, or another role, renews it.
func (d *Dashboard) roomsEvents(c *fiber.Ctx) error {
	u, s, err := d.streamSession(c)
	if err != nil {
		return d.failStream(c, err)
	}
	if u.ID == 0 {
		return d.showErrorT(c, fiber.StatusUnauthorized, "error.sign_in_first")
	}
	release, evicted, ok := d.streams.open(u.ID, maxLiveStreams)
	if !ok {
		return d.tooManyStreams(c, "error.live_streams", maxLiveStreams)
	}
	// The access is watched before the accounts are read: a change heard
	// between the two is checked again (against ids, read by then) before
	// the stream says anything.
	var sc listScope
	acc, unwatch := d.watchAccess(c, s, pageOf(c, "/", "state"), func(ctx context.Context, userID int64) (string, bool, error) {
		return d.listAccessLost(sc)(ctx, userID)
	})
	ms, err := d.accounts.Memberships(c.UserContext(), u.ID)
	if err != nil {
		unwatch()
		release()
		return d.failStream(c, err)
	}
	sc = listScopeOf(ms)
	ch, stop := d.hub.watchList(u.ID, sc.whole, sc.own)
	return d.stream(c, ch, func() { stop(); unwatch(); release() }, evicted, acc)
}
