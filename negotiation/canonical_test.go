package negotiation

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJCSStringEscaping holds appendJCSString to RFC 8785 §3.2.2.2 (what
// ECMAScript's JSON.stringify writes): '"' and '\' escaped with a
// backslash; \b \t \n \f \r in their short form; every other control
// character as \u00xx with lowercase hex; everything else, DEL, '/', '<',
// U+2028 and non-ASCII included, as its UTF-8 bytes. The expectations were
// checked against node's JSON.stringify.
func TestJCSStringEscaping(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"\x00", `"\u0000"`},
		{"\x01", `"\u0001"`},
		{"\b", `"\b"`},
		{"\t", `"\t"`},
		{"\n", `"\n"`},
		{"\x0b", `"\u000b"`},
		{"\f", `"\f"`},
		{"\r", `"\r"`},
		{"\x0e", `"\u000e"`},
		{"\x1a", `"\u001a"`},
		{"\x1f", `"\u001f"`},
		{" ", `" "`},
		{`"`, `"\""`},
		{`\`, `"\\"`},
		{"/", `"/"`},
		{"<>&", `"<>&"`},
		{"\x7f", "\"\x7f\""},
		{"\u0080", "\"\u0080\""},
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"é😀", `"é😀"`},
		{"a\x1fb\"c\\d", `"a\u001fb\"c\\d"`},
		{"tail\n", `"tail\n"`},
		{"\nhead", `"\nhead"`},
	}
	for _, c := range cases {
		got := string(appendJCSString([]byte("prefix:"), c.in))
		if got != "prefix:"+c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
		// What JCS writes is JSON that reads back to the same text.
		var back string
		if err := json.Unmarshal([]byte(c.want), &back); err != nil || back != c.in {
			t.Errorf("%q: %s does not read back (%v, %q)", c.in, c.want, err, back)
		}
		if n, err := parseJSON([]byte(c.want)); err != nil || n.s != c.in {
			t.Errorf("%q: parseJSON of %s: %v %q", c.in, c.want, err, n.s)
		}
	}
	if got := string(appendJCSInt(nil, -MaxSafeInt)); got != "-9007199254740991" {
		t.Errorf("appendJCSInt: %s", got)
	}
}

// TestCanonicalTermsEscapeMultilineText: the control characters a string
// value may hold (tab, line feed, carriage return) reach the canonical form
// escaped, and the hash is of those bytes.
func TestCanonicalTermsEscapeMultilineText(t *testing.T) {
	s := mustSchema(t, []byte(`{"note":{"type":"string","label":"Note"}}`))
	terms, err := s.ParseTerms([]byte(`{"note":"a\tb\r\nc \"q\" \\ / \u00e9 \u2028"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"note\":\"a\\tb\\r\\nc \\\"q\\\" \\\\ / é \u2028\"}"
	if string(terms.Canonical()) != want {
		t.Errorf("canonical %s, want %s", terms.Canonical(), want)
	}
	if terms.Hash() != hashOf([]byte(want)) || !strings.HasPrefix(string(terms.Hash()), "sha256:") || len(terms.Hash()) != 71 {
		t.Errorf("hash %s", terms.Hash())
	}
	// The same text written differently hashes the same.
	same, err := s.ParseTerms([]byte("{\"note\":\"a\\u0009b\\r\\nc \\\"q\\\" \\\\ \\/ é \\u2028\"}"))
	if err != nil || same.Hash() != terms.Hash() {
		t.Errorf("another spelling of the same text: %v, %s vs %s", err, same.Hash(), terms.Hash())
	}
}

func TestValidText(t *testing.T) {
	cases := []struct {
		s                string
		single, multline bool
	}{
		{"Meeting room", true, true},
		{"é😀 – ok", true, true},
		{"a\tb", false, true},
		{"a\nb", false, true},
		{"a\r\nb", false, true},
		{"a\x00b", false, false},
		{"a\x1fb", false, false},
		{"a\x7fb", false, false},
		{"a\u0085b", false, false}, // C1 control
		{"a\u009fb", false, false},
		{"a\u00a0b", true, true}, // no-break space is text
		{"\u202eevil", false, false},
		{"\u202a", false, false},
		{"\u2066x\u2069", false, false},
		{"\u200f", true, true}, // a mark, not an override
		{"\xff", false, false},
		{"ab\xc3", false, false},
	}
	for _, c := range cases {
		if got := validText(c.s, false); got != c.single {
			t.Errorf("validText(%q, false) = %v", c.s, got)
		}
		if got := validText(c.s, true); got != c.multline {
			t.Errorf("validText(%q, true) = %v", c.s, got)
		}
	}
}
