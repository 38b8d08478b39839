package config

import (
	"strings"
	"testing"
)

// TestLoadMail: SMTP_FROM is optional, one address with or without a
// name; a bad one is one line that names the variable.
func TestLoadMail(t *testing.T) {
	t.Parallel()
	from := func(v string) func(string) string {
		return func(name string) string {
			if name == "SMTP_FROM" {
				return v
			}
			return ""
		}
	}
	for v, want := range map[string]string{
		"":                                    "",
		"  taasky@example.com ":               "taasky@example.com",
		"Taasky <taasky@example.com>":         "Taasky <taasky@example.com>",
		`"Taasky, the relay" <t@example.com>`: `"Taasky, the relay" <t@example.com>`,
	} {
		var c Config
		if err := c.LoadMail(from(v)); err != nil || c.Mail.From != want {
			t.Errorf("SMTP_FROM=%q: %q, %v; want %q", v, c.Mail.From, err, want)
		}
		if got := c.MailFrom("fallback <f@x.test>"); (want == "" && got != "fallback <f@x.test>") || (want != "" && got != want) {
			t.Errorf("SMTP_FROM=%q: MailFrom %q", v, got)
		}
	}
	for _, v := range []string{"taasky", "a@example.com, b@example.com", "Taasky <taasky@>", "x@[127.0.0.1]", "<@example.com>"} {
		var c Config
		err := c.LoadMail(from(v))
		if err == nil || !strings.HasPrefix(err.Error(), "SMTP_FROM: must be one email address") || strings.Contains(err.Error(), "\n") {
			t.Errorf("SMTP_FROM=%q: %v", v, err)
		}
	}
}

// TestLoadInviteDailyCap: INVITE_EMAIL_DAILY_CAP is optional (200), a whole
// number from 0 (no cap); a bad one is one line that names the variable
// and the rule, beside SMTP_FROM's.
func TestLoadInviteDailyCap(t *testing.T) {
	t.Parallel()
	env := func(from, limit string) func(string) string {
		return func(name string) string {
			return map[string]string{"SMTP_FROM": from, "INVITE_EMAIL_DAILY_CAP": limit}[name]
		}
	}
	for v, want := range map[string]int{"": 200, "0": 0, " 25 ": 25, "1000000": 1_000_000} {
		var c Config
		if err := c.LoadMail(env("", v)); err != nil || c.Mail.InviteDailyCap != want {
			t.Errorf("INVITE_EMAIL_DAILY_CAP=%q: %d, %v; want %d", v, c.Mail.InviteDailyCap, err, want)
		}
	}
	const rule = "INVITE_EMAIL_DAILY_CAP: must be a whole number of invitation emails per account in 24 hours, e.g. 200 (0: no cap)"
	for _, v := range []string{"-1", "2.5", "ten", "1e3", "1000001", "99999999999999999999"} {
		var c Config
		if err := c.LoadMail(env("", v)); err == nil || err.Error() != rule {
			t.Errorf("INVITE_EMAIL_DAILY_CAP=%q: %v", v, err)
		}
	}
	var c Config
	err := c.LoadMail(env("taasky", "-1"))
	if lines := strings.Split(err.Error(), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "SMTP_FROM: ") || lines[1] != rule {
		t.Errorf("both bad: %v", err)
	}
}
