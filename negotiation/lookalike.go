package negotiation

import (
	"fmt"
	"strings"
	"unicode"
)

// Text the other side's human reads as it is (labels, enum values, a
// room's title) must not be built to look like something else: a word
// that mixes scripts ("Pаyment" with a Cyrillic а), invisible characters,
// or two labels or two values of one field that a person cannot tell
// apart. These rules apply to schemas and titles declared from now on
// (Open, and the service's join), not to Replay: a room declared before
// them still replays.

// lookalikeScripts are the scripts whose letters pass for each other.
var lookalikeScripts = []*unicode.RangeTable{unicode.Latin, unicode.Cyrillic, unicode.Greek, unicode.Armenian, unicode.Cherokee, unicode.Coptic}

// Deceptive says why s is built to look like something else ("" if it is
// not): a word mixing scripts, an invisible character, or a line or
// paragraph separator (U+2028, U+2029), which breaks a line as \n does
// where the one line it is meant to be is shown (an email's text).
func Deceptive(s string) string {
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) && r != '\u200d' {
			return fmt.Sprintf("holds an invisible character (U+%04X)", r)
		}
		if r == '\u2028' || r == '\u2029' {
			return fmt.Sprintf("breaks the line (U+%04X): write one line", r)
		}
	}
	for _, word := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsMark(r) }) {
		var seen *unicode.RangeTable
		for _, r := range word {
			for _, script := range lookalikeScripts {
				if unicode.Is(script, r) {
					if seen != nil && seen != script {
						return fmt.Sprintf("mixes scripts in one word (%q): write each word in one script", Clip(word))
					}
					seen = script
				}
			}
		}
	}
	return ""
}

// confusables maps letters that pass for Latin ones (Cyrillic, Greek,
// fullwidth) to them; enough to catch a lookalike made on purpose.
var confusables = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y',
	'х': 'x', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ь': 'b', 'г': 'r', 'п': 'n',
	'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x',
	'ω': 'w', 'γ': 'y', 'ı': 'i', 'ℓ': 'l', '0': 'o', '1': 'l',
}

// skeleton is s as a person may read it: case folded, lookalikes mapped to
// Latin, fullwidth forms to ASCII, invisible characters and spaces dropped.
func skeleton(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.Is(unicode.Cf, r), unicode.IsSpace(r):
			continue
		case r >= 0xFF01 && r <= 0xFF5E:
			r = unicode.ToLower(r - 0xFF01 + '!')
		}
		if c, ok := confusables[r]; ok {
			r = c
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CheckDeceptive refuses a schema whose labels or enum values are built to
// look like something else, or look like each other.
func (s *Schema) CheckDeceptive() error { return s.CheckDeceptiveFolded(nil) }

// CheckDeceptiveFolded is CheckDeceptive with labels and values compared
// once fold has been applied to them: a door's Unicode normalization
// (NFKC), whose tables the standard library lacks, so that "é" written as
// one character and as "e" with a combining accent are the same text.
func (s *Schema) CheckDeceptiveFolded(fold func(string) string) error {
	alike := func(a, b string) string {
		if fold != nil && skeleton(a) != skeleton(b) {
			return fmt.Sprintf("%+q and %+q are the same text written in two Unicode forms; write both in one (NFC)", Clip(a), Clip(b))
		}
		return fmt.Sprintf("%q and %q look alike; a person could not tell them apart", Clip(a), Clip(b))
	}
	key := skeleton
	if fold != nil {
		key = func(s string) string { return skeleton(fold(s)) }
	}
	labels := map[string]Field{}
	for _, f := range s.fields {
		if why := Deceptive(f.Label); why != "" {
			return schemaErr("%s: label %s", f.Name, why)
		}
		k := key(f.Label)
		if other, ok := labels[k]; ok {
			if fold != nil && skeleton(f.Label) != skeleton(other.Label) {
				return schemaErr("%s: its label and the label of %s: %s", f.Name, other.Name, alike(other.Label, f.Label))
			}
			return schemaErr("%s: its label looks like the label of %s; a person could not tell them apart", f.Name, other.Name)
		}
		labels[k] = f
		values := map[string]string{}
		for _, v := range f.Values {
			if why := Deceptive(v); why != "" {
				return schemaErr("%s: value %q %s", f.Name, Clip(v), why)
			}
			k := key(v)
			if other, ok := values[k]; ok {
				return schemaErr("%s: values %s", f.Name, alike(other, v))
			}
			values[k] = v
		}
	}
	return nil
}

// ReadableLine reports whether s is one line a person reads as it is:
// valid UTF-8, no control characters (tab and line breaks included) and no
// bidirectional overrides, the rule labels follow.
func ReadableLine(s string) bool { return validText(s, false) }
