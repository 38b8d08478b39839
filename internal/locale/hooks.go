package locale

import (
	"strconv"
	"strings"
)

// HookFailure says a webhook attempt's stored failure in the reader's
// words: the sender stores it in English ("answered HTTP 500", "no
// answer: " and the network's error), which the webhook log, the
// endpoint's state and the mail that it was turned off showed as is. The
// network's own error is said by its kind when it is a usual one (no
// answer in time, refused, no such host, a certificate, a private
// address), else quoted as it came.
func (p *Printer) HookFailure(stored string) string {
	if code, ok := strings.CutPrefix(stored, "answered HTTP "); ok {
		if n, err := strconv.Atoi(code); err == nil {
			return p.T("hooks28_answered", n)
		}
	}
	why, ok := strings.CutPrefix(stored, "no answer: ")
	if !ok {
		return stored
	}
	for _, k := range hookReasons {
		if strings.Contains(why, k.says) {
			why = p.T(k.key)
			break
		}
	}
	return p.T("form.at", p.T("webhook_log.no_answer"), why)
}

// hookReasons are the network's usual errors, by the words that tell
// them (Go's net, net/http, crypto/tls and x509, netguard), first match.
var hookReasons = []struct {
	says string
	key  Key
}{
	{"deadline exceeded", "hooks28_timeout"},
	{"Client.Timeout", "hooks28_timeout"},
	{"i/o timeout", "hooks28_timeout"},
	{"connection refused", "hooks28_refused"},
	{"no such host", "hooks28_no_host"},
	{"does not resolve", "hooks28_no_host"},
	{"private or loopback address", "hooks28_private"},
	{"x509:", "hooks28_certificate"},
	{"tls:", "hooks28_certificate"},
	{"connection reset", "hooks28_cut"},
	{"EOF", "hooks28_cut"},
}
