// Package netguard keeps Taasky's own outgoing requests (Client ID Metadata
// Documents, webhooks) away from the machine it runs on and the networks
// behind it: a URL a stranger typed must not make Taasky dial a loopback,
// private, link-local or otherwise internal address. The check is made on
// the address actually dialled (a net.Dialer Control hook), after DNS, for
// every hop and every retry, so a name that resolves to a public address
// when it is saved and to 127.0.0.1 when it is used is still refused.
//
// It must not decide anything else about a request (schemes, sizes,
// redirects): its callers do, each for its own door.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Internal reports whether a is an address Taasky must not dial for a
// stranger's URL: loopback, private (RFC 1918, fc00::/7), link-local,
// unspecified, multicast, carrier-grade NAT (100.64.0.0/10), and the rest of
// IANA's special-purpose ranges that are not global (documentation,
// benchmarking, reserved, site-local, deprecated relays, segment-routing
// identifiers). An IPv6 address that carries an IPv4 one a translator or
// relay would dial (NAT64's 64:ff9b::/96, SIIT's ::ffff:0:0:0/96, 6to4's
// 2002::/16) is judged by
// that IPv4 address: behind a NAT64 gateway, [64:ff9b::a00:5] reaches
// 10.0.0.5.
func Internal(a netip.Addr) bool {
	a = a.Unmap()
	if v4, ok := embeddedV4(a); ok {
		return Internal(v4)
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsUnspecified() || a.IsMulticast() {
		return true
	}
	for _, p := range notGlobal {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// notGlobal lists IANA's special-purpose ranges (RFC 6890 and its
// registries) that netip's predicates do not cover and no public host has.
var notGlobal = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"100.64.0.0/10",   // carrier-grade NAT
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation
		"192.88.99.0/24",  // 6to4 relay anycast, deprecated
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"240.0.0.0/4",     // reserved, and the broadcast address
		"::/96",           // IPv4-compatible, deprecated
		"64:ff9b:1::/48",  // NAT64 for local use
		"100::/64",        // discard
		"100:0:0:1::/64",  // dummy prefix (RFC 9780)
		"2001::/23",       // IETF protocol assignments, Teredo among them
		"2001:db8::/32",   // documentation
		"3fff::/20",       // documentation (RFC 9637)
		"5f00::/16",       // SRv6 segment identifiers, inside an operator's domain (RFC 9602)
		"fec0::/10",       // site-local, deprecated
	} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96") // SIIT, RFC 2765
	sixToFour  = netip.MustParsePrefix("2002::/16")
)

// embeddedV4 returns the IPv4 address a NAT64, SIIT or 6to4 address stands
// for.
func embeddedV4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case nat64.Contains(a), translated.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// ErrRefused is what a refused dial's error wraps: retrying will not help.
var ErrRefused = errors.New("a private or loopback address")

// RefuseInternal is a net.Dialer Control hook: it refuses a connection to
// an Internal address, whatever name led there.
func RefuseInternal(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	if a := ap.Addr().Unmap(); Internal(a) {
		return fmt.Errorf("%s is %w", a, ErrRefused)
	}
	return nil
}

// Dialer returns a dialer with timeout that, unless allowInternal (dev and
// tests, whose servers listen on loopback), refuses Internal addresses.
func Dialer(timeout time.Duration, allowInternal bool) *net.Dialer {
	d := &net.Dialer{Timeout: timeout}
	if !allowInternal {
		d.Control = RefuseInternal
	}
	return d
}

// CheckHost resolves host (a name or an address) and refuses it when any of
// its addresses is Internal: the early, friendly refusal when a URL is
// saved. The dial-time check (RefuseInternal) is the one that holds.
func CheckHost(ctx context.Context, host string) error {
	if a, err := netip.ParseAddr(host); err == nil {
		if Internal(a) {
			return fmt.Errorf("%s is a private or loopback address", a.Unmap())
		}
		return nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("%s does not resolve", host)
	}
	for _, a := range addrs {
		if Internal(a) {
			return fmt.Errorf("%s resolves to %s, a private or loopback address", host, a.Unmap())
		}
	}
	return nil
}

// IsLoopbackHost reports whether h names this machine: localhost or a
// loopback address.
func IsLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}
