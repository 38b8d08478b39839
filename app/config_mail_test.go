package app

import (
	"strings"
	"testing"
)

// TestLoadMail: SMTP_FROM is optional, one address with or without a
// name; a bad one is one line that names the variable.
func TestLoadMail(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{
		"":                                    "",
		"  taasky@example.com ":               "taasky@example.com",
		"Taasky <taasky@example.com>":         "Taasky <taasky@example.com>",
		`"Taasky, the relay" <t@example.com>`: `"Taasky, the relay" <t@example.com>`,
	} {
		var c Config
		if err := c.LoadMail(func(string) string { return v }); err != nil || c.Mail.From != want {
			t.Errorf("SMTP_FROM=%q: %q, %v; want %q", v, c.Mail.From, err, want)
		}
		if got := c.MailFrom("fallback <f@x.test>"); (want == "" && got != "fallback <f@x.test>") || (want != "" && got != want) {
			t.Errorf("SMTP_FROM=%q: MailFrom %q", v, got)
		}
	}
	for _, v := range []string{"taasky", "a@example.com, b@example.com", "Taasky <taasky@>", "x@[127.0.0.1]", "<@example.com>"} {
		var c Config
		err := c.LoadMail(func(string) string { return v })
		if err == nil || !strings.HasPrefix(err.Error(), "SMTP_FROM: must be one email address") || strings.Contains(err.Error(), "\n") {
			t.Errorf("SMTP_FROM=%q: %v", v, err)
		}
	}
}
