package app

import (
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Room tokens and invitation codes are 256 and 160 random bits; only their
// SHA-256 is stored. A room token is derived from the server's token key
// and a stored salt, so a retried join can be answered with the same token
// while the database alone cannot produce one.

const roomTokenPrefix = "rt_"

func (s *Rooms) roomToken(roomID int64, side string, salt []byte) string {
	m := hmac.New(sha256.New, s.tokenKey)
	fmt.Fprintf(m, "room-token\x00%d\x00%s\x00", roomID, side)
	m.Write(salt)
	return roomTokenPrefix + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func secretHash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand never fails
	return b
}

var inviteEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newInviteCode is 160 random bits in lowercase base32, easy to read aloud.
func newInviteCode() string {
	return strings.ToLower(inviteEncoding.EncodeToString(randomBytes(20)))
}

// inviteCodeFrom accepts a bare code or an invite URL ending in /i/{code},
// with any query string or fragment (a mail client's or a chat's tracking,
// "#…" of a pasted link) left off first: no code holds "?" or "#", and a
// "/i/" in the query does not name the code.
func inviteCodeFrom(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "/i/"); i >= 0 {
		s = s[i+3:]
	}
	return strings.ToLower(strings.TrimRight(s, "/"))
}

func newConfirmationID() string {
	return "cf_" + base64.RawURLEncoding.EncodeToString(randomBytes(12))
}

// sealLimits encrypts a party's limits, bound to its room and side.
func (s *Rooms) sealLimits(roomID int64, side string, limits []byte) []byte {
	return seal(s.limitsKey, limits, []byte(fmt.Sprintf("limits\x00%d\x00%s", roomID, side)))
}

func (s *Rooms) openLimits(roomID int64, side string, sealed []byte) ([]byte, error) {
	out, err := unseal(s.limitsKey, sealed, []byte(fmt.Sprintf("limits\x00%d\x00%s", roomID, side)))
	if err != nil {
		return nil, fmt.Errorf("limits of room %d side %s: %w", roomID, side, err)
	}
	return out, nil
}

// seal encrypts plain with AES-GCM under a random nonce, bound to ad (what
// it belongs to: it opens only with the same ad). The nonce leads.
func seal(key cipher.AEAD, plain, ad []byte) []byte {
	nonce := randomBytes(key.NonceSize())
	return key.Seal(nonce, nonce, plain, ad)
}

// errUnsealable is a sealed value that does not open with this process's
// key: sealed under another SECRET_KEY (an installation that started over
// with a new one, docs/operations.md), or altered.
var errUnsealable = errors.New("does not open with this SECRET_KEY (sealed under another key, or altered)")

// unseal opens what seal sealed with the same ad.
func unseal(key cipher.AEAD, sealed, ad []byte) ([]byte, error) {
	n := key.NonceSize()
	if len(sealed) < n {
		return nil, fmt.Errorf("%w: too short", errUnsealable)
	}
	plain, err := key.Open(nil, sealed[:n], sealed[n:], ad)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUnsealable, err)
	}
	return plain, nil
}
