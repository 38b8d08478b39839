package dashboard

import (
	"net/netip"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/ratelimit"
)

// clientAddr is the address a stranger's request counts against
// (ratelimit.ClientAddr): the connection's, unless that is a trusted
// proxy (Config.TrustedProxies); then the nearest address in
// X-Forwarded-For that is not a trusted proxy; an IPv6 address as its
// /64. (Fiber's c.IP() is the connection's address too, as no ProxyHeader
// is set.)
func (d *Dashboard) clientAddr(c *fiber.Ctx) netip.Addr {
	peer, _ := netip.AddrFromSlice(c.Context().RemoteIP())
	return d.clientOf(peer, c.Request().Header.PeekAll(fiber.HeaderXForwardedFor))
}

// clientOf is clientAddr of a request from peer with these X-Forwarded-For
// headers.
func (d *Dashboard) clientOf(peer netip.Addr, forwarded [][]byte) netip.Addr {
	return ratelimit.ClientAddr(peer, forwarded, d.trusted)
}
