package config

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

var fuzzSettings = []string{"DATABASE_URL", "LISTEN_ADDR", "PPROF_ADDR", "BASE_URL", "SECRET_KEY", "SECRET_KEY_PREVIOUS",
	"SMTP_URL", "OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY",
	"TRUSTED_PROXIES", "WEB_RATE_LIMIT", "WEB_RATE_BURST", "MCP_RATE_LIMIT", "MCP_RATE_BURST", "MCP_AUTH_FAILURE_LIMIT",
	"MCP_ACCOUNT_CONCURRENCY", "COUNTER_COOLDOWN", "ROOM_MAX_ROUNDS", "SIGNUP_DAILY_CAP", "AGENTS_PER_ACCOUNT_MAX",
	"KEYS_PER_AGENT_MAX", "OPEN_ROOMS_PER_ACCOUNT_MAX", "SMTP_FROM", "INVITE_EMAIL_DAILY_CAP", "OAUTH_GRANT_MAX_DAYS",
	"RECEIPT_KEY_VERSION", "RETAIN_DELIVERY_LOG_DAYS", "RETAIN_ONETAP_DAYS", "RETAIN_WEBHOOK_DAYS",
	"RETAIN_OAUTH_CLIENT_DAYS", "SHUTDOWN_GRACE"}

// secretOf is the secret a setting's value holds ("" if none).
func secretOf(name, value string) string {
	switch name {
	case "SECRET_KEY", "SECRET_KEY_PREVIOUS", "OIDC_CLIENT_SECRET", "VAPID_PRIVATE_KEY":
		return strings.TrimSpace(value)
	case "SMTP_URL", "DATABASE_URL":
		if u, err := url.Parse(strings.TrimSpace(value)); err == nil && u.User != nil {
			p, _ := u.User.Password()
			return p
		}
	}
	return ""
}

// FuzzSettings sets one setting of a good configuration to arbitrary
// text, for the server and for `taasky dev`. Whatever it is: no panic;
// a refusal is one line per fault, each naming the setting (VAPID's two
// keys go together); no refusal and no log of the configuration shows a
// secret the value holds; and a value taken is taken again as it was
// read (BASE_URL as normalized).
//
//	go test ./internal/config -run XXX -fuzz FuzzSettings -fuzztime 3m -parallel 1
func FuzzSettings(f *testing.F) {
	for i, v := range []string{"postgres://u:hunter22@db/x", ":8080", "127.0.0.1:6060", "https://taasky.example.com/",
		testSecret + "x", testSecret, "smtps://u:hunter22@mail.example:465", "https://accounts.example.com/", "taasky", "s3cret",
		"BAD", "BAD", "10.0.0.0/8, 127.0.0.1", "1.5", "10", "2", "3", "5", "4", "30s", "12", "100", "5", "5", "50",
		"Taasky <no-reply@taasky.example.com>", "200", "90", "2", "30", "30", "30", "30", "5s"} {
		f.Add(uint8(i), v)
	}
	for _, v := range []string{"", " ", "-1", "1e9", "0x10", "NaN", "Inf", "9999999999999999999999", "1h", "-5s", "10.0.0.0/33",
		"http://taasky.example.com", "https://u:p@x/", "postgres://x:pw%zz@h/d", "fe80::1%eth0/64", "\x00", "𝟙"} {
		f.Add(uint8(len(v)*7), v)
	}
	good, err := Load(func(k string) string { return goodEnv()[k] }, RoleWeb|RoleWorker)
	if err != nil {
		f.Fatal(err)
	}
	baseline := fmt.Sprint(good)
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		name := fuzzSettings[int(which)%len(fuzzSettings)]
		role := RoleWeb | RoleWorker
		if which >= 128 {
			role |= RoleDev
		}
		env := goodEnv()
		env[name] = value
		getenv := func(k string) string { return env[k] }
		c, err := Load(getenv, role)
		var errs []string
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			for _, load := range []func(func(string) string) error{c.LoadMail, c.LoadOAuth, c.LoadReceipts, c.LoadRetention, c.LoadShutdown} {
				if err := load(getenv); err != nil {
					errs = append(errs, err.Error())
				}
			}
		}
		secret := secretOf(name, value)
		if len(secret) < 8 || strings.Contains(baseline+strings.Join(fuzzSettings, " "), secret) {
			secret = "" // too short to tell from the words around it
		}
		for _, line := range strings.Split(strings.Join(errs, "\n"), "\n") {
			if line == "" {
				continue
			}
			if !strings.HasPrefix(line, name+": ") && !(strings.HasPrefix(name, "VAPID_") && strings.HasPrefix(line, "VAPID_")) {
				t.Fatalf("%s=%q: the refusal %q does not name %s", name, value, line, name)
			}
			if secret != "" && strings.Contains(line, secret) {
				t.Fatalf("%s=%q: the refusal %q shows the secret", name, value, line)
			}
		}
		if len(errs) > 0 {
			return
		}
		if shown := fmt.Sprint(c); secret != "" && strings.Contains(shown, secret) {
			t.Fatalf("%s=%q: the configuration's log shows the secret: %s", name, value, shown)
		}
		if name == "BASE_URL" && strings.TrimSpace(value) != "" {
			env[name] = c.BaseURL
			again, err := Load(getenv, role)
			if err != nil || again.BaseURL != c.BaseURL {
				t.Fatalf("BASE_URL=%q read as %q, which reads as %q (%v)", value, c.BaseURL, again.BaseURL, err)
			}
		}
	})
}
