package app

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"
)

// MailConfig is how Taasky signs the mail it sends.
type MailConfig struct {
	// From is the From address as given in SMTP_FROM ("taasky@example.com"
	// or "Taasky <taasky@example.com>"); "" when unset: the caller's default.
	From string
}

// LoadMail reads SMTP_FROM into c.Mail. A bad value is one line, in the
// words of LoadConfig's ("SMTP_FROM: …"), to be joined with its errors so
// that every problem shows at once.
func (c *Config) LoadMail(getenv func(string) string) error {
	v := strings.TrimSpace(getenv("SMTP_FROM"))
	if v == "" {
		c.Mail = MailConfig{}
		return nil
	}
	if msg := checkMailFrom(v); msg != "" {
		return errors.New("SMTP_FROM: " + msg)
	}
	c.Mail = MailConfig{From: v}
	return nil
}

// MailFrom is the From address to send with: SMTP_FROM if set, else
// fallback.
func (c Config) MailFrom(fallback string) string {
	if c.Mail.From != "" {
		return c.Mail.From
	}
	return fallback
}

// checkMailFrom accepts one address, with or without a display name.
func checkMailFrom(v string) string {
	const rule = "must be one email address, optionally with a name: taasky@example.com or Taasky <taasky@example.com>"
	if strings.ContainsAny(v, "\r\n") || len(v) > 320 {
		return rule
	}
	a, err := mail.ParseAddress(v)
	if err != nil {
		return fmt.Sprintf("%s (%s)", rule, strings.TrimPrefix(err.Error(), "mail: "))
	}
	if _, domain, _ := strings.Cut(a.Address, "@"); domain == "" || strings.HasPrefix(domain, "[") {
		return rule
	}
	return ""
}
