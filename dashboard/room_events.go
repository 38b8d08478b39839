package dashboard

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
)

// roomEvents streams a "change" event whenever the room changes, for a
// member of one of its accounts (at most maxLiveStreams at once per person,
// with the rooms list's), until they lose the room (live_access.go).
func (d *Dashboard) roomEvents(c *fiber.Ctx) error {
	u, s, err := d.streamSession(c)
	if err != nil {
		return d.failStream(c, err)
	}
	if u.ID == 0 {
		return d.showErrorT(c, fiber.StatusUnauthorized, "error.sign_in_first")
	}
	roomID, err := c.ParamsInt("id")
	if err != nil || roomID <= 0 {
		return d.showErrorT(c, fiber.StatusNotFound, "error.no_room")
	}
	release, evicted, ok := d.streams.open(u.ID, maxLiveStreams)
	if !ok {
		return d.tooManyStreams(c, "error.live_streams", maxLiveStreams)
	}
	// The access is watched before it is checked: a loss heard between
	// the two is checked again before the stream says anything.
	acc, unwatch := d.watchAccess(c, s, pageOf(c, "/rooms/"+strconv.Itoa(roomID), "side"), d.roomAccessLost(int64(roomID)))
	if err := d.rooms.SeesRoom(c.UserContext(), u.ID, int64(roomID)); err != nil {
		unwatch()
		release()
		return d.failStream(c, err)
	}
	ch, stop := d.hub.watchRoom(int64(roomID))
	return d.stream(c, ch, func() { stop(); unwatch(); release() }, evicted, acc)
}
