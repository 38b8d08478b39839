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
// unspecified, multicast, or carrier-grade NAT (100.64.0.0/10).
func Internal(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsUnspecified() || a.IsMulticast() || cgnat.Contains(a)
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

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
