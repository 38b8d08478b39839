package ratelimit

import (
	"net/netip"
	"strings"
	"testing"
)

// referenceClientAddr is ClientAddr written another way: every
// X-Forwarded-For entry in one list, walked from the right.
func referenceClientAddr(peer netip.Addr, forwarded [][]byte, trusted []netip.Prefix) netip.Addr {
	in := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	addr := peer.Unmap()
	if in(addr) {
		var hops []string
		for _, h := range forwarded {
			if len(h) > 0 {
				hops = append(hops, strings.Split(string(h), ",")...)
			}
		}
		for i := len(hops) - 1; i >= 0; i-- {
			s := strings.TrimSpace(hops[i])
			a, err := netip.ParseAddr(s)
			if err != nil {
				ap, err := netip.ParseAddrPort(s)
				if err != nil {
					break
				}
				a = ap.Addr()
			}
			addr = a.Unmap().WithZone("")
			if !in(addr) {
				break
			}
		}
	}
	if addr.Is6() {
		addr = netip.PrefixFrom(addr.WithZone(""), 64).Masked().Addr()
	}
	return addr
}

// FuzzClientAddr: whom a request counts against agrees with the
// reference; it is an address whenever the peer is one; and what a
// client writes left of the proxies' entries (a header of its own, or
// entries before its address) never changes it once an untrusted address
// was found.
//
//	go test ./internal/ratelimit -run XXX -fuzz FuzzClientAddr -fuzztime 2m -parallel 1
func FuzzClientAddr(f *testing.F) {
	for _, s := range [][4]string{
		{"203.0.113.9", "198.51.100.1", "", ""},
		{"127.0.0.1", "6.6.6.6, 198.51.100.1", "", "6.6.6.6"},
		{"127.0.0.1", "6.6.6.6,198.51.100.1,10.0.0.5", "", "1.1.1.1"},
		{"127.0.0.1", "6.6.6.6", "198.51.100.1", "nonsense"},
		{"127.0.0.1", "198.51.100.1, nonsense", "", ""},
		{"127.0.0.1", "198.51.100.1,", "", ""},
		{"127.0.0.1", "[2001:db8:1:2::9]:443", "10.0.0.5", ""},
		{"127.0.0.1", "::ffff:198.51.100.1", "", "::ffff:10.0.0.1"},
		{"::ffff:127.0.0.1", "fe80::1%eth0", "", ""},
		{"2001:db8:1:2:3:4:5:6", "", "", ""},
		{"10.1.2.3", "", "10.0.0.7:80", "x"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("fd00::/8")}
	f.Fuzz(func(t *testing.T, peerText, h1, h2, junk string) {
		peer, err := netip.ParseAddr(peerText)
		if err != nil {
			return
		}
		var fwd [][]byte
		for _, h := range []string{h1, h2} {
			if h != "" {
				fwd = append(fwd, []byte(h))
			}
		}
		got := ClientAddr(peer, fwd, trusted)
		if want := referenceClientAddr(peer, fwd, trusted); got != want {
			t.Fatalf("from %s with %q: %s, the reference %s", peer, fwd, got, want)
		}
		if !got.IsValid() || got.Zone() != "" || got.Is4In6() {
			t.Fatalf("from %s with %q: %s is no address to count against", peer, fwd, got)
		}
		if Trusted(got, trusted) || len(fwd) == 0 {
			return
		}
		if again := ClientAddr(peer, append([][]byte{[]byte(junk)}, fwd...), trusted); again != got {
			t.Fatalf("from %s with %q: %s; with the client's header %q first: %s", peer, fwd, got, junk, again)
		}
		if got == ClientAddr(peer, nil, trusted) {
			return // the peer itself: no entry found
		}
		left := append([][]byte{[]byte(junk + "," + string(fwd[0]))}, fwd[1:]...)
		if again := ClientAddr(peer, left, trusted); again != got {
			t.Fatalf("from %s with %q: %s; with %q written left of it: %s", peer, fwd, got, junk, again)
		}
	})
}
