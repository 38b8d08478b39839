package config

import (
	"errors"
	"fmt"
	"net/mail"
	"strconv"
	"strings"
)

// Mail is how Taasky signs the mail it sends, and how much of it an
// account may cause.
type Mail struct {
	// From is the From address as given in SMTP_FROM ("taasky@example.com"
	// or "Taasky <taasky@example.com>"); "" when unset: the caller's default.
	From string
	// InviteDailyCap is how many invitations one account may have emailed
	// (negotiation_open's invite_email) in any 24 hours
	// (INVITE_EMAIL_DAILY_CAP, default 200); 0: no cap.
	InviteDailyCap int
}

// defaultInviteDailyCap: far above a person's invitations in a day, far
// below what a loop would send to strangers.
const defaultInviteDailyCap = 200

// LoadMail reads SMTP_FROM and INVITE_EMAIL_DAILY_CAP into c.Mail. A bad
// value is one line, in the words of Load's ("SMTP_FROM: …"), to be
// joined with its errors so that every problem shows at once.
func (c *Config) LoadMail(getenv func(string) string) error {
	c.Mail = Mail{InviteDailyCap: defaultInviteDailyCap}
	var errs []error
	if v := strings.TrimSpace(getenv("SMTP_FROM")); v != "" {
		if msg := checkMailFrom(v); msg != "" {
			errs = append(errs, errors.New("SMTP_FROM: "+msg))
		} else {
			c.Mail.From = v
		}
	}
	if v := strings.TrimSpace(getenv("INVITE_EMAIL_DAILY_CAP")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1_000_000 {
			errs = append(errs, errors.New("INVITE_EMAIL_DAILY_CAP: must be a whole number of invitation emails per account "+
				"in 24 hours, e.g. 200 (0: no cap)"))
		} else {
			c.Mail.InviteDailyCap = n
		}
	}
	return errors.Join(errs...)
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
