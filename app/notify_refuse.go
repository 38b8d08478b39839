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
// with the server's key. The refusal keeps only a keyed hash of the
// address (emailHash).

const refusePrefix = "ri_"

func (n *Notifications) refuseMAC(email string) []byte { return refuseMAC(n.unsubKey, email) }

func refuseMAC(key []byte, email string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("refuse-invitations\x00"))
	m.Write([]byte(email))
	return m.Sum(nil)[:16]
}

// RefuseInvitationsURL is the link in an invitation mail to address that
// stops further invitations to it.
func (n *Notifications) RefuseInvitationsURL(address string) string {
	return refuseInvitationsURL(n.unsubKey, n.baseURL, address)
}

// refuseInvitationsURL is the refusal link of address signed with key (the
// unsubscribe key): a room invitation's and a member invitation's alike.
func refuseInvitationsURL(key []byte, baseURL, address string) string {
	email := strings.ToLower(address)
	return baseURL + "/refuse/" + refusePrefix + base64.RawURLEncoding.EncodeToString(append(refuseMAC(key, email), email...))
}

// errInviteRefused refuses an invitation to an address that refused every
// invitation from Taasky; it says nothing more of the address.
var errInviteRefused = refuse(ErrConflict, "error.refuse10_address_refused", "email: this address does not accept invitations from Taasky")

// checkInviteRefused refuses an invitation to an address that refused them.
func checkInviteRefused(ctx context.Context, q querier, emailKey emailKeys, email string) error {
	refused, err := selectInviteRefused(ctx, q, emailHashes(emailKey, email))
	if err != nil {
		return err
	}
	if refused {
		return errInviteRefused
	}
	return nil
}

// RefusingAddress is the address a refusal token names, if it is one of
// this server's; it changes nothing.
func (n *Notifications) RefusingAddress(token string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, refusePrefix))
	if !strings.HasPrefix(token, refusePrefix) || err != nil || len(b) <= 16 {
		return "", false
	}
	if !hmac.Equal(b[:16], n.refuseMAC(string(b[16:]))) && (n.unsubKeyPrev == nil || !hmac.Equal(b[:16], refuseMAC(n.unsubKeyPrev, string(b[16:])))) {
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
	if err := insertInviteRefusal(ctx, n.pool, emailHash(n.rooms.emailKey, email), n.now()); err != nil {
		return "", err
	}
	return email, nil
}
