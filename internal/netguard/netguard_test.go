package netguard

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestInternal(t *testing.T) {
	for _, c := range []struct {
		addr     string
		internal bool
	}{
		{"127.0.0.1", true}, {"::1", true}, {"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fc00::1", true}, {"0.0.0.0", true}, {"::", true},
		{"100.64.0.1", true}, {"224.0.0.1", true}, {"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true},
		{"93.184.216.34", false}, {"2606:2800:220:1:248:1893:25c8:1946", false}, {"100.128.0.1", false},
		// A NAT64 gateway or a 6to4 relay dials the IPv4 address inside.
		{"64:ff9b::a00:5", true}, {"64:ff9b::7f00:1", true}, {"64:ff9b::a9fe:a9fe", true},
		{"2002:a00:5::1", true}, {"2002:7f00:1::", true},
		{"64:ff9b::5db8:d822", false}, {"2002:5db8:d822::1", false},
		// SIIT's IPv4-translated addresses (RFC 2765): a stateless
		// translator dials the IPv4 address they carry.
		{"::ffff:0:a00:5", true}, {"::ffff:0:7f00:1", true}, {"::ffff:0:5db8:d822", false},
		// Special-purpose ranges no public host has.
		{"0.1.2.3", true}, {"192.0.0.170", true}, {"192.0.2.1", true}, {"198.18.0.1", true},
		{"198.51.100.7", true}, {"203.0.113.9", true}, {"240.0.0.1", true}, {"255.255.255.255", true},
		{"::7f00:1", true}, {"64:ff9b:1::a00:5", true}, {"2001:0:4136:e378::1", true},
		{"2001:db8::1", true}, {"fec0::1", true}, {"100::1", true},
		// Registered since 2024, none globally reachable: IPv6's second
		// documentation prefix (RFC 9637), SRv6 segment identifiers, which
		// route inside an operator's segment-routing domain (RFC 9602), and
		// the dummy prefix (RFC 9780).
		{"3fff::1", true}, {"3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"5f00::1", true},
		{"5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"100:0:0:1::1", true},
		{"3fff:1000::1", false},
		// The same ranges written as IPv4-mapped IPv6 (a resolver may
		// answer so): judged as the IPv4 address they carry.
		{"::ffff:100.64.0.1", true}, {"::ffff:192.0.2.1", true}, {"::ffff:93.184.216.34", false},
		// Multicast beyond the link: a group address is no host of a stranger's.
		{"239.255.255.250", true}, {"ff0e::1", true},
	} {
		if got := Internal(netip.MustParseAddr(c.addr)); got != c.internal {
			t.Errorf("Internal(%s) = %v, want %v", c.addr, got, c.internal)
		}
	}
}

// TestDialerRefusesTheAddressDialled: a name that resolves to loopback is
// refused when dialled, not only when checked.
func TestDialerRefusesTheAddressDialled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = Dialer(time.Second, false).DialContext(ctx, "tcp", net.JoinHostPort("localhost", port))
	if err == nil || !strings.Contains(err.Error(), "private or loopback") {
		t.Fatalf("dial localhost: %v, want a refusal", err)
	}
	c, err := Dialer(time.Second, true).DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("allowed dial: %v", err)
	}
	c.Close()
	if d := Dialer(3*time.Second, false); d.Timeout != 3*time.Second || d.Control == nil {
		t.Errorf("Dialer(3s, false): timeout %s, a control hook %v", d.Timeout, d.Control != nil)
	}
	if err := CheckHost(ctx, "localhost"); err == nil {
		t.Fatal("CheckHost(localhost) passed")
	}
	if err := CheckHost(ctx, "10.0.0.1"); err == nil {
		t.Fatal("CheckHost(10.0.0.1) passed")
	}
	if err := CheckHost(ctx, "93.184.216.34"); err != nil {
		t.Fatalf("CheckHost(public) = %v", err)
	}
	// A name that cannot resolve is refused too (the resolver rejects
	// this spelling without asking any server).
	if err := CheckHost(ctx, "no such host"); err == nil || !strings.Contains(err.Error(), "does not resolve") {
		t.Fatalf("CheckHost(unresolvable) = %v, want \"does not resolve\"", err)
	}
}

// TestIsLoopbackHost: only this machine's names count as loopback (the
// doors that allow plain http for a local client rely on it).
func TestIsLoopbackHost(t *testing.T) {
	for h, want := range map[string]bool{"localhost": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true,
		"localhost.example": false, "10.0.0.1": false, "example.com": false, "": false, "::ffff:127.0.0.1": true,
		// The unspecified address reaches this machine when dialled, but it
		// names no host: not a loopback host a client may be served at.
		"0.0.0.0": false, "::": false} {
		if got := IsLoopbackHost(h); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", h, got, want)
		}
	}
}

// TestRefuseInternal: outside dev and test, nothing is fetched from the
// machine itself, its network or the cloud's metadata.
func TestRefuseInternal(t *testing.T) {
	for addr, refused := range map[string]bool{"127.0.0.1:443": true, "10.1.2.3:443": true, "[::1]:443": true,
		"169.254.169.254:80": true, "192.168.0.9:443": true, "[fd00::1]:443": true, "0.0.0.0:443": true,
		"93.184.215.14:443": false, "[2606:4700::1]:443": false,
		// Not an address the hook can judge: refused, never let through.
		"localhost:443": true, "": true} {
		if err := RefuseInternal("tcp", addr, nil); (err != nil) != refused {
			t.Errorf("%s: %v, refused want %v", addr, err, refused)
		}
	}
}

// lastAddr is p's last address (every host bit set).
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// TestInternalWholeRanges: every range is refused from its first address
// to its last (a range cut short would let its far end be dialled), and
// the global addresses just outside the IPv4 ranges are not; a 6to4
// address is judged by the IPv4 address in its bits 16 to 48.
func TestInternalWholeRanges(t *testing.T) {
	for _, s := range []string{"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "::/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64",
		"2001::/23", "2001:db8::/32", "100:0:0:1::/64", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8"} {
		p := netip.MustParsePrefix(s)
		for _, a := range []netip.Addr{p.Addr(), lastAddr(p)} {
			if !Internal(a) {
				t.Errorf("%s of %s: not internal", a, s)
			}
		}
	}
	for _, s := range []string{"0.255.255.255", "100.127.255.255", "198.19.255.255", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"} {
		if !Internal(netip.MustParseAddr(s)) {
			t.Errorf("%s: not internal", s)
		}
	}
	for _, s := range []string{"1.0.0.0", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255", "128.0.0.0",
		"169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.0.1.255", "192.0.3.0", "192.88.98.255",
		"192.88.100.0", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0", "198.51.99.255", "198.51.101.0",
		"203.0.112.255", "203.0.114.0", "223.255.255.255", "2001:200::1", "2001:db9::1", "2001:db7:ffff::1"} {
		if Internal(netip.MustParseAddr(s)) {
			t.Errorf("%s: internal, want a global address", s)
		}
	}
	// 6to4: 2002:c0a8:101:: stands for 192.168.1.1; 2002:5db8:d822:: for a
	// public address.
	if !Internal(netip.MustParseAddr("2002:c0a8:101::1")) || Internal(netip.MustParseAddr("2002:5db8:d822:ffff::1")) {
		t.Error("6to4 addresses are not judged by their IPv4 address")
	}
	if !Internal(netip.MustParseAddr("64:ff9b::c0a8:101")) {
		t.Error("NAT64 64:ff9b::c0a8:101 (192.168.1.1): not internal")
	}
}
