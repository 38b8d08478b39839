package app

import (
	"strings"
	"unicode"
)

// shownName is a stored agent's or client's name as every door shows it.
// Names stored before the stricter name rule (no direction-changing or
// invisible characters: app's checkName, oauthserver's clientName) are kept
// in the database as their owners wrote them, not rewritten, but what in
// them could make a page or a mail read as something else is shown as
// U+FFFD: a direction override or isolate (which would turn the words
// after it around, in a sentence such as "X wants to negotiate for you"),
// an invisible character (but the joiner of emoji sequences, as the rule
// allows), a control character, a line or paragraph separator. A name that
// keeps the rule is returned as it is, without a copy. Length needs no
// care: the tables have held names to 1–80 characters from the start.
// Words that mix alphabets are shown as stored: they cannot be told from a
// real name without rewriting it.
func shownName(s string) string {
	if printableASCII(s) || !strings.ContainsFunc(s, unshowable) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unshowable(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// unshowable: a rune a name must not show as it is (shownName).
func unshowable(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) && r != '\u200d' || r == '\u2028' || r == '\u2029'
}

// printableASCII: most names, checked a byte at a time (an agent is read
// on every MCP call).
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
