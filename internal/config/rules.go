package config

import (
	"bytes"
	"crypto/ecdh"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/taasky/taasky/internal/netguard"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The check functions return "" for a good value, else the rule it breaks, in
// words a user can act on. They never echo a value that may hold a secret.

const minSecretKeyLen = 32

func checkDatabaseURL(v string) string {
	if _, err := pgxpool.ParseConfig(v); err != nil {
		// pgconn's parse errors redact the password, but not all of a
		// keyword/value one (redactKeywordPassword); they quote the value
		// as it is, a line break too: the refusal stays one line.
		msg := strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(err.Error())
		return "is not a PostgreSQL connection string: " + redactKeywordPassword(v, msg)
	}
	return ""
}

var (
	passwordKeyword = regexp.MustCompile(`password\s*=\s*`)
	nextKeyword     = regexp.MustCompile(`\s+[A-Za-z_]+\s*=`)
)

// redactKeywordPassword masks in msg what pgconn's redaction misses of a
// keyword/value string's password: the words of a password a line break,
// a tab or an escaped space split ("missing \"=\" after \"cr3t\""), or
// one written "password = …". A password runs to the next keyword=; each
// of its words of 3 characters or more is masked wherever msg has it.
func redactKeywordPassword(v, msg string) string {
	if strings.HasPrefix(v, "postgres://") || strings.HasPrefix(v, "postgresql://") {
		return msg // pgconn masks a URL's password itself
	}
	var words []string
	for _, m := range passwordKeyword.FindAllStringIndex(v, -1) {
		value := v[m[1]:]
		if n := nextKeyword.FindStringIndex(value); n != nil {
			value = value[:n[0]]
		}
		for _, w := range strings.FieldsFunc(value, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\'' || r == '\\' }) {
			if len(w) >= 3 {
				words = append(words, w)
			}
		}
	}
	// The longest first: a word inside another is masked within it.
	slices.SortFunc(words, func(a, b string) int { return len(b) - len(a) })
	for _, w := range words {
		msg = strings.ReplaceAll(msg, w, "xxxxx")
	}
	return msg
}

func checkListenAddr(v string) string {
	return checkAddr(v, "must be host:port, e.g. 127.0.0.1:8080 or :8080")
}

// checkAddr checks a host:port to listen on, rule saying what it must be.
func checkAddr(v, rule string) string {
	_, port, err := net.SplitHostPort(v)
	if err != nil {
		return rule
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return rule + " (the port is a number from 0 to 65535)"
	}
	return ""
}

// BaseURL reads v as BASE_URL is read (checkBaseURL): the URL as Taasky
// names itself, its scheme and host lower-cased, without trailing
// slashes; or the rule v breaks. A receipt's issuer is such a URL.
func BaseURL(v string) (string, error) {
	u, msg := checkBaseURL(strings.TrimSpace(v))
	if msg != "" {
		return "", errors.New(msg)
	}
	return u, nil
}

// checkBaseURL returns v without its trailing slashes.
func checkBaseURL(v string) (string, string) {
	u, err := url.Parse(v)
	switch {
	case err != nil || u.Opaque != "":
		return "", "must be an absolute http(s) URL, e.g. https://taasky.example.com"
	case u.Scheme != "http" && u.Scheme != "https":
		return "", "must be an absolute http(s) URL, e.g. https://taasky.example.com (the scheme must be http or https)"
	case u.Host == "" || u.Hostname() == "":
		return "", "must be an absolute http(s) URL with a host, e.g. https://taasky.example.com"
	case u.User != nil:
		return "", "must not contain a user or password"
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(v, "?#"):
		return "", "must not have a query (?…) or a fragment (#…)"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fmt.Sprintf("the port must be 1 to 65535 (got %s)", p)
		}
	}
	// The scheme and host as every client writes them (lower case, a
	// domain in its ASCII form: browsers write bücher.example as
	// xn--bcher-kva.example in Origin, OAuth clients compare issuers as
	// strings): the cookies' Secure flag and the OAuth issuer are decided
	// from them.
	host := strings.ToLower(u.Host)
	if _, err := netip.ParseAddr(u.Hostname()); err != nil {
		ascii, err := hostASCII.ToASCII(u.Hostname())
		if err == nil && !utf8.ValidString(u.Hostname()) {
			// idna writes a byte that is no UTF-8 as U+FFFD, a host no
			// one named: "https://caf\xe9.example" from a Latin-1 file was
			// taken as https://xn--caf-7t7s.example, not café's
			// xn--caf-dma.
			err = errors.New("not UTF-8")
		} else if _, again := hostASCII.ToASCII(ascii); err == nil && again != nil {
			err = again // a host whose ASCII form is no domain name either
		}
		if err != nil {
			return "", fmt.Sprintf("the host %q is not a valid domain name (%v)", u.Hostname(), err)
		}
		host = ascii
		if p := u.Port(); p != "" {
			host += ":" + p
		}
	}
	return u.Scheme + "://" + host + strings.TrimRight(u.EscapedPath(), "/"), ""
}

// hostASCII writes a domain as browsers do (the WHATWG URL standard's
// "domain to ASCII": UTS 46 mapping, without STD3 rules or the hyphens'
// check, so an underscore or "ab--c" passes as it does in a browser),
// with no empty or over-long label, which no name server answers for.
// idna.Lookup's STD3 rules refused hosts browsers open.
var hostASCII = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.StrictDomainName(false), idna.CheckHyphens(false), idna.VerifyDNSLength(true))

// checkServedAt says what keeps Taasky from being served at u (as
// checkBaseURL returns it): a path, under which the dashboard's pages,
// which link and redirect from the host's root, do not work, and whose
// host the sign-in cookies (__Host-, Path=/) would share with whatever
// else it serves; or plain http on a host other than this machine's
// (sessions and one-tap links in the clear), except under `taasky dev`.
func checkServedAt(u string, dev bool) string {
	p, _ := url.Parse(u)
	if p.Path != "" {
		return fmt.Sprintf("must be the root of a host, without a path (got %s): the dashboard's pages link from the host's root, and its sign-in cookies are the whole host's; give Taasky a host of its own, e.g. https://taasky.example.com", p.EscapedPath())
	}
	if p.Scheme == "http" && !dev && !netguard.IsLoopbackHost(p.Hostname()) {
		return "must be an https URL (http is allowed only for 127.0.0.1, localhost and ::1, or under `taasky dev`): over http, sign-ins and one-tap links travel in the clear; terminate TLS in front of Taasky (deploy/nginx/taasky.conf)"
	}
	return ""
}

func checkSecretKey(v string) string {
	if n := utf8.RuneCountInString(v); n < minSecretKeyLen {
		return fmt.Sprintf("must be at least %d characters (it has %d); generate one with `openssl rand -base64 48`", minSecretKeyLen, n)
	}
	return ""
}

func checkIssuer(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return "must be the issuer's URL, e.g. https://accounts.google.com"
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !netguard.IsLoopbackHost(strings.ToLower(u.Hostname())) {
			return "must be an https URL (http is allowed only for 127.0.0.1, localhost and ::1)"
		}
	default:
		return "must be an https URL (http is allowed only for 127.0.0.1, localhost and ::1)"
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "must not have a query (?…) or a fragment (#…)"
	}
	return ""
}

// parseSMTPURL reads smtp://user:pass@host:port or smtps://…; user, password
// and port are optional (port 587 for smtp, 465 for smtps).
func parseSMTPURL(v string) (*SMTP, string) {
	const form = "must look like smtp://user:password@host:port or smtps://user:password@host:port"
	u, err := url.Parse(v)
	if err != nil || u.Opaque != "" {
		return nil, form
	}
	c := &SMTP{Host: u.Hostname()}
	switch u.Scheme {
	case "smtp":
		c.Port = 587
	case "smtps":
		c.Port, c.ImplicitTLS = 465, true
	default:
		return nil, form + " (the scheme must be smtp or smtps)"
	}
	if c.Host == "" {
		return nil, form + " (the host is missing)"
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, form + " (the port is a number from 1 to 65535)"
		}
		c.Port = n
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, form + " (the port is empty)"
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, form + " (nothing may follow host:port)"
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	return c, ""
}

type varProblem struct{ name, msg string }

// checkVAPID checks the Web Push keys: both or neither, each the right size
// on P-256, and the public key the private key's.
func checkVAPID(pub, priv string) []varProblem {
	if pub == "" && priv == "" {
		return nil
	}
	// The one given is checked too: every problem at once.
	var problems []varProblem
	pubBytes, err := decodeBase64URL(pub)
	var pubKey *ecdh.PublicKey
	switch {
	case pub == "":
		problems = append(problems, varProblem{"VAPID_PUBLIC_KEY", "is required when VAPID_PRIVATE_KEY is set (set both or neither)"})
	case err != nil:
		problems = append(problems, varProblem{"VAPID_PUBLIC_KEY", "must be base64url (RFC 4648 §5), without spaces"})
	case len(pubBytes) != 65 || pubBytes[0] != 4:
		problems = append(problems, varProblem{"VAPID_PUBLIC_KEY", fmt.Sprintf("must be a 65-byte uncompressed P-256 public key in base64url (it decodes to %d bytes%s)", len(pubBytes), notUncompressed(pubBytes))})
	default:
		if pubKey, err = ecdh.P256().NewPublicKey(pubBytes); err != nil {
			problems = append(problems, varProblem{"VAPID_PUBLIC_KEY", "is not a point on the P-256 curve"})
		}
	}
	privBytes, err := decodeBase64URL(priv)
	var privKey *ecdh.PrivateKey
	switch {
	case priv == "":
		problems = append(problems, varProblem{"VAPID_PRIVATE_KEY", "is required when VAPID_PUBLIC_KEY is set (set both or neither)"})
	case err != nil:
		problems = append(problems, varProblem{"VAPID_PRIVATE_KEY", "must be base64url (RFC 4648 §5), without spaces"})
	case len(privBytes) != 32:
		problems = append(problems, varProblem{"VAPID_PRIVATE_KEY", fmt.Sprintf("must be a 32-byte P-256 private key in base64url (it decodes to %d bytes)", len(privBytes))})
	default:
		if privKey, err = ecdh.P256().NewPrivateKey(privBytes); err != nil {
			problems = append(problems, varProblem{"VAPID_PRIVATE_KEY", "is not a valid P-256 private key"})
		}
	}
	if pubKey != nil && privKey != nil && !bytes.Equal(privKey.PublicKey().Bytes(), pubKey.Bytes()) {
		problems = append(problems, varProblem{"VAPID_PUBLIC_KEY", "is not the public key of VAPID_PRIVATE_KEY (generate them as a pair)"})
	}
	return problems
}

func notUncompressed(b []byte) string {
	if len(b) == 65 {
		return ", not starting with 0x04"
	}
	return ""
}

// decodeBase64URL accepts base64url with or without padding.
func decodeBase64URL(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// describeDatabase names the server, user and database of a connection
// string, for logs, leaving out the password and options.
func describeDatabase(v string) string {
	pc, err := pgxpool.ParseConfig(v)
	if err != nil || v == "" {
		return ""
	}
	cc := pc.ConnConfig
	// Every host, as a failover URL lists them (pgx keeps all but the
	// first as fallbacks, and repeats a host for each TLS mode it tries).
	hosts := []string{net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port)))}
	for _, f := range cc.Fallbacks {
		if h := net.JoinHostPort(f.Host, strconv.Itoa(int(f.Port))); !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return fmt.Sprintf("%s@%s/%s", cc.User, strings.Join(hosts, ","), cc.Database)
}
