package app

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/taasky/taasky/negotiation"
)

// Room tokens and invitation codes are 256 and 160 random bits; only their
// SHA-256 is stored. A room token is derived from the server's token key
// and a stored salt, so a retried join can be answered with the same token
// while the database alone cannot produce one.

const roomTokenPrefix = "rt_"

func (s *Rooms) roomToken(roomID int64, side string, salt []byte) string {
	return roomTokenUnder(s.tokenKey, roomID, side, salt)
}

func roomTokenUnder(key []byte, roomID int64, side string, salt []byte) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "room-token\x00%d\x00%s\x00", roomID, side)
	m.Write(salt)
	return roomTokenPrefix + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// seatHash is what finds an agent's seat by its room token: the token's
// SHA-256, and during a rotation of SECRET_KEY its HMAC under the previous
// token key (nil otherwise), which a seat re-keyed by `taasky secret-key
// rotate` keeps for its token from before (party_tokens_before).
type seatHash struct{ token, prev []byte }

// seatHashOf is the seatHash of a room token.
func (s *Rooms) seatHashOf(token string) seatHash {
	h := seatHash{token: secretHash(token)}
	if s.tokenKeyPrev != nil {
		h.prev = prevTokenHash(s.tokenKeyPrev, token)
	}
	return h
}

// prevTokenHash is what a seat re-keyed at a rotation keeps of its room
// token from before: keyed with the previous key, it finds the seat only
// while that key is SECRET_KEY_PREVIOUS.
func prevTokenHash(previousKey []byte, token string) []byte {
	m := hmac.New(sha256.New, previousKey)
	m.Write([]byte("room-token-before-rotation\x00"))
	m.Write([]byte(token))
	return m.Sum(nil)
}

// keptSeatToken is seatToken of a seat whose hash is not at hand: read,
// during a rotation only.
func (s *Rooms) keptSeatToken(ctx context.Context, q querier, roomID int64, side negotiation.Side, salt []byte) (string, error) {
	if s.tokenKeyPrev == nil {
		return s.roomToken(roomID, string(side), salt), nil
	}
	hash, err := selectSeatTokenHash(ctx, q, roomID, side)
	if err != nil {
		return "", err
	}
	return s.seatToken(roomID, string(side), salt, hash), nil
}

// seatToken is the room token of a seat kept with salt and hash: derived
// with the current token key, or, during a rotation of SECRET_KEY, with
// the previous one when the seat's hash is of that one's token (a seat
// taken before the rotation, not yet re-keyed by `taasky secret-key
// rotate`).
func (s *Rooms) seatToken(roomID int64, side string, salt, hash []byte) string {
	token := s.roomToken(roomID, side, salt)
	if s.tokenKeyPrev != nil && !bytes.Equal(secretHash(token), hash) {
		if old := roomTokenUnder(s.tokenKeyPrev, roomID, side, salt); bytes.Equal(secretHash(old), hash) {
			return old
		}
	}
	return token
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

// sealKeys are the AES-256-GCM keys of one purpose: the first (derived
// from SECRET_KEY) seals, and each opens; the second, during a rotation of
// SECRET_KEY, is SECRET_KEY_PREVIOUS's (docs/operations.md).
type sealKeys []cipher.AEAD

// newSealKeys makes the keys from 32-byte keys, the current one first; a
// nil previous one is none.
func newSealKeys(current, previous []byte) (sealKeys, error) {
	var out sealKeys
	for i, k := range [][]byte{current, previous} {
		if i > 0 && k == nil {
			continue
		}
		if len(k) != 32 {
			return nil, fmt.Errorf("a key of %d bytes, want 32", len(k))
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		out = append(out, aead)
	}
	return out, nil
}

// seal encrypts plain with AES-GCM under a random nonce, bound to ad (what
// it belongs to: it opens only with the same ad), with the current key.
// The nonce leads.
func seal(keys sealKeys, plain, ad []byte) []byte {
	key := keys[0]
	nonce := randomBytes(key.NonceSize())
	return key.Seal(nonce, nonce, plain, ad)
}

// errUnsealable is a sealed value that does not open with this process's
// key: sealed under another SECRET_KEY (an installation that started over
// with a new one, docs/operations.md), or altered.
var errUnsealable = errors.New("does not open with this SECRET_KEY (sealed under another key, or altered)")

// unseal opens what seal sealed with the same ad, under any of keys.
func unseal(keys sealKeys, sealed, ad []byte) ([]byte, error) {
	plain, _, err := unsealWhich(keys, sealed, ad)
	return plain, err
}

// unsealWhich is unseal, and which of keys opened it (0: the current one).
func unsealWhich(keys sealKeys, sealed, ad []byte) ([]byte, int, error) {
	n := keys[0].NonceSize()
	if len(sealed) < n {
		return nil, 0, fmt.Errorf("%w: too short", errUnsealable)
	}
	var err error
	for i, key := range keys {
		var plain []byte
		if plain, err = key.Open(nil, sealed[:n], sealed[n:], ad); err == nil {
			return plain, i, nil
		}
	}
	return nil, 0, fmt.Errorf("%w: %w", errUnsealable, err)
}

// reseal is sealed under the current key: nil when it already is, or
// when it does not open (it is left as it is: what does not open under
// either key is not the rotation's to mend).
func reseal(keys sealKeys, sealed, ad []byte) ([]byte, error) {
	plain, i, err := unsealWhich(keys, sealed, ad)
	if err != nil {
		return nil, err
	}
	if i == 0 {
		return nil, nil
	}
	return seal(keys, plain, ad), nil
}
