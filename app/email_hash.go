package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"strings"
)

// The addresses that refused invitations (invite_refusals, kept for good)
// and the sign-ups of the last day (signups) are kept as hashes of the
// address. An address is easy to guess, so a plain hash of it is no
// secret: whoever holds the database could test any address against it.
// They are keyed: 0x01, then an HMAC-SHA256, under a key derived from the
// room token key (and so from SECRET_KEY), of the address's plain hash.
// Keying the plain hash, not the address, lets the rows a build before
// kept as plain hashes (32 bytes) be keyed where they are
// (KeyEmailHashes), without the addresses.

// emailKeyOf is the key of the addresses' hashes, derived from the room
// token key (RoomsConfig.TokenKey).
func emailKeyOf(tokenKey []byte) []byte {
	m := hmac.New(sha256.New, tokenKey)
	m.Write([]byte("email-hash"))
	return m.Sum(nil)
}

// plainEmailHash is the SHA-256 of the lowercased address: what was kept
// before the hashes were keyed.
func plainEmailHash(email string) []byte {
	h := sha256.Sum256([]byte(strings.ToLower(email)))
	return h[:]
}

// keyedEmailHash is what is kept of an address now, from its plain hash.
func keyedEmailHash(key, plain []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("email\x00"))
	m.Write(plain)
	return m.Sum([]byte{1})
}

// emailHash is the hash kept of email.
func emailHash(key []byte, email string) []byte {
	return keyedEmailHash(key, plainEmailHash(email))
}

// emailHashes are the hashes a row of email may hold: keyed, or plain when
// a process of a build before wrote it (during a rolling upgrade, or
// before KeyEmailHashes ran).
func emailHashes(key []byte, email string) [][]byte {
	plain := plainEmailHash(email)
	return [][]byte{keyedEmailHash(key, plain), plain}
}
