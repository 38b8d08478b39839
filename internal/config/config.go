package config

import (
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"
)

// Role says what a process is about to do, and so which settings it needs.
// Roles combine: `taasky serve` is RoleWeb|RoleWorker.
type Role uint8

const (
	// RoleMigrate needs only DATABASE_URL.
	RoleMigrate Role = 1 << iota
	// RoleAdmin (account and agent commands) needs DATABASE_URL and BASE_URL
	// (to print the URLs of what it creates).
	RoleAdmin
	// RoleWeb serves the dashboard and the MCP endpoint: it needs BASE_URL,
	// SECRET_KEY and OIDC_* too.
	RoleWeb
	// RoleWorker runs the River jobs: it needs BASE_URL (links in messages) and
	// SECRET_KEY. SMTP_URL is optional: without it, mail is not sent but kept
	// in the dev outbox, where the dashboard shows it.
	RoleWorker
	// RoleDev (with RoleWeb|RoleWorker) is `taasky dev`: LISTEN_ADDR defaults to
	// 127.0.0.1:8080, BASE_URL to the listen address, and OIDC_* may be left
	// unset (an embedded issuer is used).
	RoleDev
)

// Config is the service's configuration, read from the environment by
// Load. The secret key is kept unexported: use Key to derive keys.
type Config struct {
	Role        Role
	DatabaseURL string
	// BaseURL is the public URL of the service, without a trailing slash.
	BaseURL    string
	ListenAddr string
	// PprofAddr is where Go's profiler listens (PPROF_ADDR); "": nowhere.
	PprofAddr string
	// SMTP is nil when SMTP_URL is unset: mail goes to the dev outbox.
	SMTP *SMTP
	Mail Mail // SMTP_FROM, INVITE_EMAIL_DAILY_CAP: set by LoadMail (mail.go)
	// OIDC is zero when OIDC_ISSUER is unset (allowed in dev only).
	OIDC OIDC
	// VAPID is nil when the VAPID keys are unset: Web Push is off.
	VAPID *VAPIDKeys
	// Abuse is the rate limit per agent and the pace of rooms
	// (abuse.go).
	Abuse Abuse
	// ShutdownGrace is how long /readyz answers 503 after SIGTERM before
	// the listener closes (SHUTDOWN_GRACE; set by LoadShutdown, shutdown.go).
	ShutdownGrace time.Duration
	// ReceiptKeyVersion is the version of the key that signs receipts
	// (RECEIPT_KEY_VERSION; set by LoadReceipts, receipts.go).
	ReceiptKeyVersion int
	// Retention is how long personal data is kept once it has served its
	// purpose (RETAIN_*_DAYS; set by LoadRetention, retention.go).
	Retention Retention
	// OAuthGrantMax is how long an MCP client's OAuth grant lasts from the
	// person's consent (OAUTH_GRANT_MAX_DAYS; set by LoadOAuth, oauth.go).
	OAuthGrantMax time.Duration

	secretKey string
	// previousKey is SECRET_KEY_PREVIOUS: during a rotation, the key
	// SECRET_KEY replaces, which only opens and verifies (PreviousKey).
	previousKey string
}

// SMTP is where mail is sent (SMTP_URL).
type SMTP struct {
	Host     string
	Port     int
	Username string
	Password string
	// ImplicitTLS is true for smtps:// (TLS from the first byte, usually port
	// 465); smtp:// uses STARTTLS when the server offers it.
	ImplicitTLS bool
}

// OIDC is the OpenID Connect issuer humans log in with.
type OIDC struct {
	Issuer       string
	ClientID     string
	ClientSecret string
}

// VAPIDKeys are the Web Push application server keys, base64url as given.
type VAPIDKeys struct {
	PublicKey  string
	PrivateKey string
}

// Load reads the configuration for role from getenv (os.Getenv in main).
// It reports every missing or bad setting at once, one line each, joined with
// errors.Join.
func Load(getenv func(string) string, role Role) (Config, error) {
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	c := Config{Role: role}
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
	}
	dev := role&RoleDev != 0
	web := role&RoleWeb != 0
	worker := role&RoleWorker != 0

	if v := env("DATABASE_URL"); v == "" {
		bad("DATABASE_URL", "is required (a PostgreSQL URL, e.g. postgres://user@host:5432/taasky)")
	} else if msg := checkDatabaseURL(v); msg != "" {
		bad("DATABASE_URL", "%s", msg)
	} else {
		c.DatabaseURL = v
	}

	c.ListenAddr = env("LISTEN_ADDR")
	if c.ListenAddr == "" {
		c.ListenAddr = ":8080"
		if dev {
			c.ListenAddr = "127.0.0.1:8080"
		}
	}
	if msg := checkListenAddr(c.ListenAddr); msg != "" {
		bad("LISTEN_ADDR", "%s", msg)
	}

	if c.PprofAddr = env("PPROF_ADDR"); c.PprofAddr != "" {
		if msg := checkAddr(c.PprofAddr, "must be host:port, e.g. 127.0.0.1:6060 (never a public address)"); msg != "" {
			bad("PPROF_ADDR", "%s", msg)
		}
	}

	c.BaseURL = env("BASE_URL")
	derived := false
	if c.BaseURL == "" && dev {
		c.BaseURL, derived = devBaseURL(c.ListenAddr), true
	}
	switch {
	case c.BaseURL == "":
		if role&(RoleAdmin|RoleWeb|RoleWorker) != 0 {
			bad("BASE_URL", "is required (the public URL of Taasky, e.g. https://taasky.example.com)")
		}
	case derived:
		// Ours, from LISTEN_ADDR, not a setting to check; but port 0 (any
		// free one) would print, and sign in at, a URL nothing answers.
		if _, port, err := net.SplitHostPort(c.ListenAddr); err == nil {
			if n, err := strconv.Atoi(port); err == nil && n == 0 {
				bad("LISTEN_ADDR", "under `taasky dev` without BASE_URL, the port must be 1 to 65535 (got 0): the dashboard's, the sign-in's and the agents' URLs are made from it; give a port, or set BASE_URL")
			}
		}
	default:
		if u, msg := checkBaseURL(c.BaseURL); msg != "" {
			bad("BASE_URL", "%s", msg)
		} else if msg := checkServedAt(u, dev); msg != "" {
			bad("BASE_URL", "%s", msg)
		} else {
			c.BaseURL = u
		}
	}

	c.secretKey = getenv("SECRET_KEY") // not trimmed: every character counts
	if c.secretKey == "" {
		if web || worker {
			bad("SECRET_KEY", "is required (at least %d random characters, e.g. from `openssl rand -base64 48`)", minSecretKeyLen)
		}
	} else if msg := checkSecretKey(c.secretKey); msg != "" {
		bad("SECRET_KEY", "%s", msg)
	}

	c.previousKey = getenv("SECRET_KEY_PREVIOUS") // not trimmed either
	if c.previousKey != "" {
		if msg := checkSecretKey(c.previousKey); msg != "" {
			bad("SECRET_KEY_PREVIOUS", "%s", msg)
		} else if c.secretKey == "" {
			bad("SECRET_KEY_PREVIOUS", "is set without SECRET_KEY (set SECRET_KEY to the new key and SECRET_KEY_PREVIOUS to the one it replaces)")
		} else if c.previousKey == c.secretKey {
			bad("SECRET_KEY_PREVIOUS", "must differ from SECRET_KEY (it is the key SECRET_KEY replaces; unset it when not rotating)")
		}
	}

	if v := env("SMTP_URL"); v != "" {
		smtp, msg := parseSMTPURL(v)
		if msg != "" {
			bad("SMTP_URL", "%s", msg)
		}
		c.SMTP = smtp
	}

	c.OIDC = OIDC{
		Issuer:       env("OIDC_ISSUER"),
		ClientID:     env("OIDC_CLIENT_ID"),
		ClientSecret: env("OIDC_CLIENT_SECRET"),
	}
	oidcNeeded := web && !dev
	if dev && c.OIDC != (OIDC{}) {
		oidcNeeded = true // in dev: all three, or none for the embedded issuer
	}
	if c.OIDC.Issuer == "" {
		if oidcNeeded {
			bad("OIDC_ISSUER", "is required (the issuer URL of your OpenID Connect provider)")
		}
	} else if msg := checkIssuer(c.OIDC.Issuer); msg != "" {
		// Kept as given: a provider's issuer is compared exactly, and some
		// end in "/" (Auth0).
		bad("OIDC_ISSUER", "%s", msg)
	}
	if oidcNeeded && c.OIDC.ClientID == "" {
		bad("OIDC_CLIENT_ID", "is required (the client ID registered with the OIDC provider)")
	}
	if oidcNeeded && c.OIDC.ClientSecret == "" {
		bad("OIDC_CLIENT_SECRET", "is required (the client secret registered with the OIDC provider)")
	}

	pub, priv := env("VAPID_PUBLIC_KEY"), env("VAPID_PRIVATE_KEY")
	for _, m := range checkVAPID(pub, priv) {
		bad(m.name, "%s", m.msg)
	}
	if pub != "" && priv != "" {
		c.VAPID = &VAPIDKeys{PublicKey: pub, PrivateKey: priv}
	}

	c.Abuse = loadAbuse(env, bad)

	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Key derives a 32-byte key for purpose (e.g. "limits", "session") from
// SECRET_KEY with HKDF-SHA256, so that each use has its own key and none is
// the secret itself. It panics when the configuration has no SECRET_KEY: only
// roles that require one may ask for keys.
func (c Config) Key(purpose string) []byte {
	if c.secretKey == "" {
		panic("config: Config.Key(" + purpose + ") without a SECRET_KEY")
	}
	if purpose == "" {
		panic("config: Config.Key with an empty purpose")
	}
	return deriveKey(c.secretKey, purpose)
}

// PreviousKey is Key derived from SECRET_KEY_PREVIOUS, or nil when it is
// unset. During a rotation what was made under the previous key (sealed
// values, signed cookies and links, keyed hashes) is still opened,
// verified or found with it; nothing new is made with it.
func (c Config) PreviousKey(purpose string) []byte {
	if c.previousKey == "" {
		return nil
	}
	if purpose == "" {
		panic("config: Config.PreviousKey with an empty purpose")
	}
	return deriveKey(c.previousKey, purpose)
}

// Rotating says whether SECRET_KEY_PREVIOUS is set.
func (c Config) Rotating() bool { return c.previousKey != "" }

func deriveKey(secret, purpose string) []byte {
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, "taasky/"+purpose, 32)
	if err != nil {
		panic("config: hkdf: " + err.Error()) // only for lengths over 255*32
	}
	return key
}

// LogValue keeps secrets out of logs.
func (c Config) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("base_url", c.BaseURL),
		slog.String("listen_addr", c.ListenAddr),
		slog.String("database", describeDatabase(c.DatabaseURL)),
		slog.Bool("smtp", c.SMTP != nil),
		slog.String("oidc_issuer", c.OIDC.Issuer),
		slog.Bool("web_push", c.VAPID != nil),
		slog.Bool("secret_key_previous", c.previousKey != ""),
	}
	if c.SMTP != nil {
		attrs = append(attrs, slog.String("smtp_host", net.JoinHostPort(c.SMTP.Host, fmt.Sprint(c.SMTP.Port))))
	}
	return slog.GroupValue(attrs...)
}

// String keeps secrets out of fmt output.
func (c Config) String() string { return c.LogValue().String() }

// devBaseURL is the URL a browser on this machine reaches listenAddr at.
func devBaseURL(listenAddr string) string {
	host, port, err := net.SplitHostPort(listenAddr)
	if err != nil {
		return ""
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
