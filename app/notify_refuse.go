package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// A person invited by email who has no account can refuse every further
// invitation to their address: the invitation mail carries a link (and
// List-Unsubscribe) to /refuse/{token}, whose token is the address signed
// with the server's key. The refusal keeps only a hash of the address.

const refusePrefix = "ri_"

func (n *Notifications) refuseMAC(email string) []byte {
	m := hmac.New(sha256.New, n.unsubKey)
	m.Write([]byte("refuse-invitations\x00"))
	m.Write([]byte(email))
	return m.Sum(nil)[:16]
}

// RefuseInvitationsURL is the link in an invitation mail to address that
// stops further invitations to it.
func (n *Notifications) RefuseInvitationsURL(address string) string {
	email := strings.ToLower(address)
	return n.baseURL + "/refuse/" + refusePrefix + base64.RawURLEncoding.EncodeToString(append(n.refuseMAC(email), email...))
}

// RefusingAddress is the address a refusal token names, if it is one of
// this server's; it changes nothing.
func (n *Notifications) RefusingAddress(token string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, refusePrefix))
	if !strings.HasPrefix(token, refusePrefix) || err != nil || len(b) <= 16 || !hmac.Equal(b[:16], n.refuseMAC(string(b[16:]))) {
		return "", false
	}
	return string(b[16:]), true
}

// RefuseInvitations records that the address a refusal token names wants
// no more invitations, and returns it. Doing it twice is doing it once.
func (n *Notifications) RefuseInvitations(ctx context.Context, token string) (string, error) {
	email, ok := n.RefusingAddress(token)
	if !ok {
		return "", refuse(ErrNotFound, "error.link_not_valid", "this link is not valid")
	}
	if err := insertInviteRefusal(ctx, n.pool, emailHash(email), n.now()); err != nil {
		return "", err
	}
	return email, nil
}

func emailHash(email string) []byte {
	h := sha256.Sum256([]byte(strings.ToLower(email)))
	return h[:]
}
