package oauthserver

import (
	"strings"
	"testing"
)

// TestClientName: a client's name is the name of the agent it becomes,
// held to an agent name's rules (app's checkName): trimmed, 1–80
// characters (not bytes), the fallback when none is given, never a
// control, invisible or direction-changing character, nor words that mix
// alphabets.
func TestClientName(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"  Helper \t", "Helper"},
		{"", "fallback"},
		{" \t ", "fallback"},
		{strings.Repeat("a", 80), strings.Repeat("a", 80)},
		{strings.Repeat("é", 80), strings.Repeat("é", 80)},
	} {
		if got, err := clientName(c.name, "fallback"); err != nil || got != c.want {
			t.Errorf("clientName(%q) = %q, %v, want %q", c.name, got, err, c.want)
		}
	}
	for name, want := range map[string]string{
		strings.Repeat("a", 81): "longer than 80 characters",
		strings.Repeat("é", 81): "longer than 80 characters",
		"A\x7fB":                "control",
		"A\tB":                  "control",
		"A\u0085B":              "control",
		"A\u202eB":              "direction-changing",
		"A\u200bB":              "invisible",
		"\u0421laude":           "mixes scripts",
	} {
		if got, err := clientName(name, "fallback"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("clientName(%q) = %q, %v, want a refusal saying %q", name, got, err, want)
		}
	}
}
