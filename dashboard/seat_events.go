package dashboard

import "github.com/gofiber/fiber/v2"

// seatEvents streams a "change" event whenever a person's room changes.
func (d *Dashboard) seatEvents(c *fiber.Ctx) error {
	roomID, err := d.rooms.PersonRoomID(c.UserContext(), c.Params("token"))
	if err != nil {
		return d.failStream(c, err)
	}
	release, evicted, ok := d.seatStreams.open(roomID, maxSeatStreams)
	if !ok {
		return d.tooManyStreams(c, "cap9_seat_streams", maxSeatStreams)
	}
	ch, stop := d.hub.watchRoom(roomID)
	return d.stream(c, ch, func() { stop(); release() }, evicted, nil)
}
