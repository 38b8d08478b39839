package oauthserver

import (
	"fmt"
	"strings"
	"testing"
)

// TestCheckRedirectURIs: 1 to 10 absolute URIs of at most 2000
// characters, without a fragment (RFC 6749 §3.1.2) or a user name; http
// only to a loopback address (RFC 8252 §7.3), https with a host, or a
// private-use scheme (RFC 8252 §7.1); never javascript, data or file.
// Each refusal names the URI and the rule.
func TestCheckRedirectURIs(t *testing.T) {
	ten := make([]string, 10)
	for i := range ten {
		ten[i] = fmt.Sprintf("https://app.example/cb%d", i)
	}
	long := "https://app.example/" + strings.Repeat("a", 2000-len("https://app.example/"))
	for _, uris := range [][]string{
		{"https://app.example/cb"}, ten, {long},
		{"http://127.0.0.1:9999/cb", "http://localhost/cb", "http://[::1]:8080/cb"},
		{"cursor://anysphere.cursor-mcp/oauth/callback", "com.example.app:/cb"},
		{"https://app.example:8443/cb?x=1"},
	} {
		if got, err := checkRedirectURIs(uris); err != nil || len(got) != len(uris) {
			t.Errorf("%q: %v, want them kept", uris, err)
		}
	}
	for _, c := range []struct {
		uris []string
		want string
	}{
		{nil, "must list 1 to 10 URIs (got 0)"},
		{append(ten, "https://app.example/cb10"), "must list 1 to 10 URIs (got 11)"},
		{[]string{long + "a"}, "which is not an absolute URI"},
		{[]string{"/cb"}, "which is not an absolute URI"},
		{[]string{"https://app.example/cb#top"}, "which has a fragment"},
		{[]string{"https:evil.example"}, "which names no host"},
		{[]string{"https:///cb"}, "which names no host"},
		{[]string{"https://:443/cb"}, "which names no host"},
		{[]string{"http:evil.example"}, "which names no host"},
		{[]string{"https://app.example@evil.example/cb"}, "which has a user name before its host"},
		{[]string{"https://app.example:0/cb"}, "whose port is not a number from 1 to 65535"},
		{[]string{"https://app.example:65536/cb"}, "whose port is not a number from 1 to 65535"},
		{[]string{"http://app.example/cb"}, "http is allowed only to localhost"},
		{[]string{"http://[::1%25x]/cb"}, "whose host has an IPv6 zone identifier"},
		{[]string{"http://[::1%25lo]:8080/cb"}, "whose host has an IPv6 zone identifier"},
		{[]string{"https://[fe80::1%25eth0]/cb"}, "whose host has an IPv6 zone identifier"},
		{[]string{"javascript://app.example/%0aalert(1)"}, "whose scheme is not allowed"},
		{[]string{"data://app.example/x"}, "whose scheme is not allowed"},
		{[]string{"file:///etc/passwd"}, "whose scheme is not allowed"},
		{[]string{"https://app.example/cb", "file:///etc/passwd"}, "whose scheme is not allowed"},
	} {
		if _, err := checkRedirectURIs(c.uris); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a refusal saying %q", c.uris, err, c.want)
		}
	}
}
