package netguard

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// serveDNS answers A and AAAA questions from records on a UDP port of
// 127.0.0.1 (any other name: no such name) until the test ends, and
// returns its address.
func serveDNS(t *testing.T, records map[string][]netip.Addr) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			addrs, known := records[strings.ToLower(q.Name.String())]
			rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired}
			if !known {
				rh.RCode = dnsmessage.RCodeNameError
			}
			b := dnsmessage.NewBuilder(nil, rh)
			b.EnableCompression()
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			for _, a := range addrs {
				rr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
				switch {
				case q.Type == dnsmessage.TypeA && a.Is4():
					_ = b.AResource(rr, dnsmessage.AResource{A: a.As4()})
				case q.Type == dnsmessage.TypeAAAA && a.Is6():
					_ = b.AAAAResource(rr, dnsmessage.AAAAResource{AAAA: a.As16()})
				}
			}
			if msg, err := b.Finish(); err == nil {
				_, _ = pc.WriteTo(msg, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}

// TestCheckHostJudgesEveryAddress: a name is refused when any of the
// addresses it resolves to is internal, whichever comes first and
// whether it is IPv4 or IPv6 (a dialer may try each in turn); a name whose
// every address is global passes. The names are answered by a DNS server
// of the test's own.
func TestCheckHostJudgesEveryAddress(t *testing.T) {
	ip := netip.MustParseAddr
	dns := serveDNS(t, map[string][]netip.Addr{
		"public.taasky-test.":       {ip("93.184.216.34"), ip("2606:2800:220:1:248:1893:25c8:1946")},
		"public-first.taasky-test.": {ip("93.184.216.34"), ip("10.0.0.1")},
		"public-last.taasky-test.":  {ip("10.0.0.1"), ip("93.184.216.34")},
		"v6-inside.taasky-test.":    {ip("93.184.216.34"), ip("fd00::1")},
		"v4-inside.taasky-test.":    {ip("169.254.169.254"), ip("2606:2800:220:1:248:1893:25c8:1946")},
	})
	old := net.DefaultResolver
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", dns)
	}}
	defer func() { net.DefaultResolver = old }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := CheckHost(ctx, "public.taasky-test"); err != nil {
		t.Fatalf("a name of global addresses only: %v", err)
	}
	for _, host := range []string{"public-first.taasky-test", "public-last.taasky-test", "v6-inside.taasky-test", "v4-inside.taasky-test"} {
		if err := CheckHost(ctx, host); err == nil || !strings.Contains(err.Error(), "private or loopback") {
			t.Errorf("%s (one of its addresses internal): %v, want refused", host, err)
		}
	}
}
