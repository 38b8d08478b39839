package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/taasky/taasky/jobs"
)

// NotifyPrefs is what a human wants to be told on which channel. Requests
// are confirmation requests (their agent waits for them); notices are the
// rest: reminders, agreed, closed, no deal possible. Everything is on
// until the human turns it off.
type NotifyPrefs struct {
	EmailRequests bool
	EmailNotices  bool
	PushRequests  bool
	PushNotices   bool
}

// DefaultNotifyPrefs is a human's preferences until they change them.
var DefaultNotifyPrefs = NotifyPrefs{EmailRequests: true, EmailNotices: true, PushRequests: true, PushNotices: true}

func (p NotifyPrefs) allows(ch jobs.Channel, t jobs.Topic) bool {
	switch {
	case t == jobs.TopicTest:
		return ch == jobs.ChannelPush
	case ch == jobs.ChannelEmail && t.Critical():
		return p.EmailRequests
	case ch == jobs.ChannelEmail:
		return p.EmailNotices
	case t.Critical():
		return p.PushRequests
	}
	return p.PushNotices
}

// Prefs returns the user's notification preferences.
func (n *Notifications) Prefs(ctx context.Context, userID int64) (NotifyPrefs, error) {
	p, err := selectPrefs(ctx, n.pool, userID)
	if err != nil {
		return p, fmt.Errorf("notification preferences: %w", err)
	}
	return p, nil
}

// SetPrefs stores the user's notification preferences. Jobs already queued
// check them again when they run.
func (n *Notifications) SetPrefs(ctx context.Context, userID int64, p NotifyPrefs) error {
	err := upsertPrefs(ctx, n.pool, userID, p, n.now())
	if isForeignKeyViolation(err) {
		return Errorf(ErrNotFound, "no user %d", userID)
	}
	if err != nil {
		return fmt.Errorf("set notification preferences: %w", err)
	}
	return nil
}

// List-Unsubscribe links carry a token that names the user and is signed
// with the server's key: nothing is stored, and it turns off only email
// notices (never requests).
const unsubPrefix = "un_"

// unsubscribeToken is the user's List-Unsubscribe token.
func (n *Notifications) unsubscribeToken(userID int64) string {
	return n.signID(unsubPrefix, "email-notices", userID)
}

// signID is prefix and id, signed for domain with the unsubscribe key:
// a token that names an id, which nobody can make for another.
func (n *Notifications) signID(prefix, domain string, id int64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(id))
	return prefix + base64.RawURLEncoding.EncodeToString(append(b[:], n.idMAC(domain, b[:])...))
}

// openSignedID is the id a signID token names, if it is one.
func (n *Notifications) openSignedID(prefix, domain, token string) (int64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, prefix))
	if !strings.HasPrefix(token, prefix) || err != nil || len(b) != 24 {
		return 0, false
	}
	if !hmac.Equal(b[8:], idMAC(n.unsubKey, domain, b[:8])) && (n.unsubKeyPrev == nil || !hmac.Equal(b[8:], idMAC(n.unsubKeyPrev, domain, b[:8]))) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(b[:8])), true
}

func (n *Notifications) idMAC(domain string, id []byte) []byte { return idMAC(n.unsubKey, domain, id) }

func idMAC(key []byte, domain string, id []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(domain + "\x00"))
	m.Write(id)
	return m.Sum(nil)[:16]
}

// UnsubscribeURL is where a List-Unsubscribe link points:
// {BASE_URL}/unsubscribe/{token}. GET should show a button; POST (also RFC
// 8058 one-click, from the mail client) calls UnsubscribeNotices.
func (n *Notifications) UnsubscribeURL(userID int64) string {
	return n.baseURL + "/unsubscribe/" + n.unsubscribeToken(userID)
}

// UnsubscribeTokenValid reports whether token is a List-Unsubscribe token
// of this server (for the page that shows the button), changing nothing.
func (n *Notifications) UnsubscribeTokenValid(token string) bool {
	_, ok := n.unsubscribeUser(token)
	return ok
}

// unsubscribeUser is the user a List-Unsubscribe token names, if it is one.
func (n *Notifications) unsubscribeUser(token string) (int64, bool) {
	return n.openSignedID(unsubPrefix, "email-notices", token)
}

// UnsubscribeLanguage is the language (their setting, else their
// identity provider's locale) of the user a List-Unsubscribe token names:
// the page the link opens speaks it, whoever's browser opens it. "" for
// none known, or a token that names no user.
func (n *Notifications) UnsubscribeLanguage(ctx context.Context, token string) (string, error) {
	userID, ok := n.unsubscribeUser(token)
	if !ok {
		return "", nil
	}
	return selectUserLanguage(ctx, n.pool, &userID)
}

// UnsubscribeNotices turns off the email notices of the user a
// List-Unsubscribe token names, and returns their address. Requests for a
// confirmation are still sent.
func (n *Notifications) UnsubscribeNotices(ctx context.Context, token string) (string, error) {
	userID, ok := n.unsubscribeUser(token)
	if !ok {
		return "", refuse(ErrNotFound, "error.link_not_valid", "this link is not valid")
	}
	p, err := n.Prefs(ctx, userID)
	if err != nil {
		return "", err
	}
	p.EmailNotices = false
	if err := n.SetPrefs(ctx, userID, p); err != nil {
		return "", err
	}
	return selectUserEmail(ctx, n.pool, userID)
}
