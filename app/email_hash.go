package app

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"slices"
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
func emailKeyOf(tokenKey []byte) []byte { return subkey(tokenKey, "email-hash") }

// subkey is the key for one use, label, derived from key: HMAC-SHA256(key,
// label).
func subkey(key []byte, label string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// emailKeys are the keys of the addresses' hashes: the first keys what is
// kept now; every one finds what is kept (emailHashes). After it come,
// during a rotation of SECRET_KEY, SECRET_KEY_PREVIOUS's, and the keys of
// SECRET_KEYs rotated before, which `taasky secret-key rotate` keeps
// sealed in the database (retired_keys): a keyed hash cannot be keyed
// again without its address, which is not kept.
type emailKeys [][]byte

// newEmailKeys are the keys derived from the room token keys (nil
// previous: none), then the retired ones, each once.
func newEmailKeys(tokenKey, previousTokenKey []byte, retired ...[]byte) emailKeys {
	keys := emailKeys{emailKeyOf(tokenKey)}
	if previousTokenKey != nil {
		keys = append(keys, emailKeyOf(previousTokenKey))
	}
	for _, r := range retired {
		if !slices.ContainsFunc(keys, func(k []byte) bool { return bytes.Equal(k, r) }) {
			keys = append(keys, r)
		}
	}
	return keys
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
func emailHash(keys emailKeys, email string) []byte {
	return keyedEmailHash(keys[0], plainEmailHash(email))
}

// emailHashes are the hashes a row of email may hold: keyed (with any of
// keys), or plain when a process of a build before wrote it (during a
// rolling upgrade, or before KeyEmailHashes ran). They are looked up at
// once (= ANY), in the statement that would look up one.
func emailHashes(keys emailKeys, email string) [][]byte {
	plain := plainEmailHash(email)
	out := make([][]byte, 0, len(keys)+1)
	for _, k := range keys {
		out = append(out, keyedEmailHash(k, plain))
	}
	return append(out, plain)
}
