package dashboard

import "github.com/gofiber/fiber/v2"

// roomsEvents streams a "change" event whenever a room of one of the
// user's accounts changes, for the rooms list to refresh itself (at most
// maxLiveStreams at once per person, with the rooms').
func (d *Dashboard) roomsEvents(c *fiber.Ctx) error {
	uid, err := d.currentSession(c)
	if err != nil {
		return d.failStream(c, err)
	}
	if uid == 0 {
		return d.showErrorT(c, fiber.StatusUnauthorized, "error.sign_in_first")
	}
	release, ok := d.streams.open(uid, maxLiveStreams)
	if !ok {
		return d.tooManyStreams(c, "error.live_streams", maxLiveStreams)
	}
	ms, err := d.accounts.Memberships(c.UserContext(), uid)
	if err != nil {
		release()
		return d.failStream(c, err)
	}
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.AccountID
	}
	ch, stop := d.hub.watchAccounts(ids)
	return d.stream(c, ch, func() { stop(); release() })
}
