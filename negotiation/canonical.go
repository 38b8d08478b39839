package negotiation

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"unicode/utf8"
)

// SubjectHash identifies one set of terms: "sha256:" and the lowercase hex
// SHA-256 of the terms' canonical form (RFC 8785, JCS, after normalization).
type SubjectHash string

func hashOf(canonical []byte) SubjectHash {
	sum := sha256.Sum256(canonical)
	var out [7 + 64]byte
	copy(out[:], "sha256:")
	hex.Encode(out[7:], sum[:])
	return SubjectHash(out[:])
}

// The canonical form only ever holds objects with ASCII keys written in
// sorted order, strings, safe integers and booleans, so RFC 8785 reduces to
// its string escaping and integer formatting, both below.

// appendJCSString writes s as RFC 8785 (ECMAScript JSON.stringify) does:
// only '"', '\\' and control characters are escaped; everything else,
// including '<', '/', U+2028 and U+2029, is written as its UTF-8 bytes.
func appendJCSString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"':
			buf = append(buf, '\\', '"')
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			const hexDigits = "0123456789abcdef"
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

func appendJCSInt(buf []byte, v int64) []byte { return strconv.AppendInt(buf, v, 10) }

// validText reports whether s is valid UTF-8 without control characters
// other than tab, line feed and carriage return (and, when multiline is
// false, without those either). Bidirectional overrides are refused too:
// they make text read differently from what it is.
func validText(s string, multiline bool) bool {
	// ASCII first, byte by byte; the runes from the first other byte on.
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x20 && c < 0x7F:
		case c >= utf8.RuneSelf:
			return validRunes(s[i:], multiline)
		case (c == '\t' || c == '\n' || c == '\r') && multiline:
		default:
			return false
		}
	}
	return true
}

func validRunes(s string, multiline bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			if !multiline {
				return false
			}
		case r < 0x20, r >= 0x7F && r <= 0x9F:
			return false
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			return false
		}
	}
	return true
}

// HashOf is the subject_hash of terms already in canonical form.
func HashOf(canonical []byte) SubjectHash { return hashOf(canonical) }
