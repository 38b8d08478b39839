package dashboard

import (
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// clientAddr is the address a stranger's request counts against: the
// connection's, unless that is a trusted proxy (Config.TrustedProxies);
// then the nearest address in X-Forwarded-For that is not a trusted proxy.
// Each proxy appends the address it heard from, so only the right end of
// the header is known to be true: what lies left of the first untrusted
// address was written by the client. (Fiber's c.IP() is the connection's
// address too, as no ProxyHeader is set; with one, it would believe the
// leftmost address, which any client can write.)
//
// An IPv6 address counts as its /64: a subscriber usually holds a whole
// /64, and would otherwise get a fresh bucket per address.
func (d *Dashboard) clientAddr(c *fiber.Ctx) netip.Addr {
	peer, _ := netip.AddrFromSlice(c.Context().RemoteIP())
	return d.clientOf(peer, c.Request().Header.PeekAll(fiber.HeaderXForwardedFor))
}

// clientOf is clientAddr of a request from peer with these X-Forwarded-For
// headers.
func (d *Dashboard) clientOf(peer netip.Addr, forwarded [][]byte) netip.Addr {
	addr := peer.Unmap()
	if d.isTrustedProxy(addr) {
		addr = forwardedFor(forwarded, addr, d.isTrustedProxy)
	}
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		addr = p.Addr()
	}
	return addr
}

func (d *Dashboard) isTrustedProxy(a netip.Addr) bool {
	for _, p := range d.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedFor walks the X-Forwarded-For headers (in the order received)
// from the right, from peer, a trusted proxy: it returns the first address
// that is not trusted, or the last one it could read (peer if none).
func forwardedFor(headers [][]byte, peer netip.Addr, trusted func(netip.Addr) bool) netip.Addr {
	addr := peer
	for i := len(headers) - 1; i >= 0; i-- {
		rest := string(headers[i])
		for rest != "" {
			hop := rest
			if j := strings.LastIndexByte(rest, ','); j >= 0 {
				hop, rest = rest[j+1:], rest[:j]
			} else {
				rest = ""
			}
			a, ok := parseHop(strings.TrimSpace(hop))
			if !ok {
				return addr
			}
			if addr = a; !trusted(a) {
				return a
			}
		}
	}
	return addr
}

// parseHop reads one X-Forwarded-For entry: an address, or an address with
// a port (some proxies add it).
func parseHop(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	return a.Unmap().WithZone(""), true
}
