package ratelimit

import (
	"net/netip"
	"strings"
)

// ClientAddr is the address a stranger's request counts against: peer
// (the connection's), unless that is a trusted proxy; then the nearest
// address in the X-Forwarded-For headers (in the order received) that is
// not a trusted proxy. Each proxy appends the address it heard from, so
// only the right end of the header is known to be true: what lies left of
// the first untrusted address was written by the client. (Fiber's c.IP()
// with a ProxyHeader would believe the leftmost address, which any client
// can write.)
//
// An IPv6 address counts as its /64: a subscriber usually holds a whole
// /64, and would otherwise get a fresh bucket per address.
func ClientAddr(peer netip.Addr, forwarded [][]byte, trusted []netip.Prefix) netip.Addr {
	isTrusted := func(a netip.Addr) bool { return Trusted(a, trusted) }
	addr := peer.Unmap()
	if isTrusted(addr) {
		addr = forwardedFor(forwarded, addr, isTrusted)
	}
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		addr = p.Addr()
	}
	return addr
}

// Trusted reports whether a is one of the trusted proxies (TRUSTED_PROXIES).
func Trusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
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
