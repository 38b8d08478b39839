package negotiation

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseJSONStringEscapes: every escape of RFC 8259 §7 decodes to its
// character, surrogate pairs to one rune, and the text outside the escapes
// is kept byte for byte.
func TestParseJSONStringEscapes(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{`"plain"`, "plain"},
		{`""`, ""},
		{`"\""`, `"`},
		{`"\\"`, `\`},
		{`"\/"`, "/"},
		{`"\b"`, "\b"},
		{`"\f"`, "\f"},
		{`"\n"`, "\n"},
		{`"\r"`, "\r"},
		{`"\t"`, "\t"},
		{`"a\tb\nc"`, "a\tb\nc"},
		{`"\u0041"`, "A"},
		{`"\u00e9"`, "é"},
		{`"\u00E9"`, "é"},
		{`"\u0000"`, "\x00"},
		{`"\u001f"`, "\x1f"},
		{`"\u2028"`, "\u2028"},
		{`"\uFFFD"`, "\uFFFD"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD83D\uDE00"`, "😀"},
		{`"x\ud834\udd1ey"`, "x𝄞y"},
		{`"é😀 raw"`, "é😀 raw"},
		{`"before \n after é"`, "before \n after é"},
		{"\"\x7f\"", "\x7f"}, // DEL is not a control character to JSON
	}
	for _, c := range cases {
		n, err := parseJSON([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if n.kind != kindString || n.s != c.want {
			t.Errorf("%s: got %v %q, want string %q", c.in, n.kind, n.s, c.want)
		}
	}
}

// TestParseJSONRefusals: each malformed input is refused with the reason
// that names what is wrong.
func TestParseJSONRefusals(t *testing.T) {
	cases := []struct {
		in     string
		reason string
	}{
		{``, "unexpected end"},
		{`   `, "unexpected end"},
		{`"abc`, "unterminated string"},
		{`"abc\`, "unterminated string"},
		{`"ab\nc`, "unterminated string"},
		{`"\x"`, "bad escape"},
		{`"\a"`, "bad escape"},
		{`"\U0041"`, "bad escape"},
		{`"\u12"`, "bad \\u escape"},
		{`"\u12G4"`, "bad \\u escape"},
		{`"\u+123"`, "bad \\u escape"},
		{`"\ud800"`, "lone surrogate"},
		{`"\ud800x"`, "lone surrogate"},
		{`"\ud800\n"`, "lone surrogate"},
		{`"\udc00\ud800"`, "lone surrogate in a \\u escape at byte 7"}, // a low half first: refused where it ends
		{`"\udbff\udbff"`, "lone surrogate in a \\u escape at byte 13"},
		{`"\ude00"`, "lone surrogate"},
		{`"\ud800\u0041"`, "lone surrogate"},
		{`"\ud800\ud800"`, "lone surrogate"},
		{`"\ud800\uZZZZ"`, "bad \\u escape"},
		{`"\ud800\u12"`, "bad \\u escape"},
		{"\"a\x01b\"", "control character"},
		{"\"a\\n\x1fb\"", "control character"},
		{"\"\tb\"", "control character"},
		{"\"\xff\"", "invalid UTF-8"},
		{"\"\\n\xc3\"", "invalid UTF-8"},
		{"\"\xed\xa0\x80\"", "invalid UTF-8"}, // a surrogate written as UTF-8
		{`-`, "expected a digit"},
		{`-a`, "expected a digit"},
		{`1.`, "expected a digit after '.'"},
		{`1.e5`, "expected a digit after '.'"},
		{`1e`, "expected a digit in the exponent"},
		{`1e+`, "expected a digit in the exponent"},
		{`1E-x`, "expected a digit in the exponent"},
		{`01`, "unexpected data after the value"},
		{`-01`, "unexpected data after the value"},
		{`+1`, "unexpected character"},
		{`.5`, "unexpected character"},
		{`tru`, "unexpected character"},
		{`True`, "unexpected character"},
		{`nul`, "unexpected character"},
		{`NaN`, "unexpected character"},
		{`truex`, "unexpected data after the value"},
		{`nullnull`, "unexpected data after the value"},
		{`1 2`, "unexpected data after the value"},
		{`{"a":1}}`, "unexpected data after the value"},
		{`{`, "expected a key"},
		{`{a:1}`, "expected a key"},
		{`{"a":1,}`, "expected a key"},
		{`{"a" 1}`, "expected ':'"},
		{`{"a"`, "expected ':'"},
		{`{"a":}`, "unexpected character"},
		{`{"a":`, "unexpected end"},
		{`{"a":1 "b":2}`, "expected ',' or '}'"},
		{`{"a":1`, "expected ',' or '}'"},
		{`[`, "unexpected end"},
		{`[1,]`, "unexpected character"},
		{`[1 2]`, "expected ',' or ']'"},
		{`[1`, "expected ',' or ']'"},
		{`{"a":1,"a":2}`, `key "a" appears twice`},
		{`{"\u0061":1,"a":2}`, `key "a" appears twice`},
		{"\xef\xbb\xbf{}", "unexpected character"}, // a byte order mark
		{strings.Repeat("[", 17) + strings.Repeat("]", 17), "nested deeper than 16 levels"},
		{strings.Repeat(`{"a":`, 17) + "1" + strings.Repeat("}", 17), "nested deeper than 16 levels"},
	}
	for _, c := range cases {
		_, err := parseJSON([]byte(c.in))
		if err == nil {
			t.Errorf("%q: accepted, want refused (%s)", c.in, c.reason)
			continue
		}
		if !strings.HasPrefix(err.Error(), "not valid JSON: ") || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%q: %v, want it to say %q", c.in, err, c.reason)
		}
	}
}

// TestParseJSONNumbersKeepTheirText: a number is kept as written, so the
// protocol can tell 30 from 30.0 and refuse the second as an int.
func TestParseJSONNumbersKeepTheirText(t *testing.T) {
	for _, in := range []string{"0", "-0", "7", "-7", "30", "30.0", "1.5e+3", "1.5E-3", "2e10", "-0.0", "123456789012345678901234567890", "0.000001"} {
		n, err := parseJSON([]byte(" \t\r\n" + in + "\n"))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if n.kind != kindNumber || n.s != in {
			t.Errorf("%s: got %v %q", in, n.kind, n.s)
		}
	}
}

// TestParseJSONDepthAndOrder: 16 levels are fine; keys keep their order and
// duplicate keys in different objects are not duplicates.
func TestParseJSONDepthAndOrder(t *testing.T) {
	deep := strings.Repeat("[", 16) + strings.Repeat("]", 16)
	if _, err := parseJSON([]byte(deep)); err != nil {
		t.Errorf("16 levels: %v", err)
	}
	// Depth is counted down again when a container closes.
	wide := "[" + strings.Repeat(strings.Repeat("[", 15)+strings.Repeat("]", 15)+",", 3) + "1]"
	if _, err := parseJSON([]byte(wide)); err != nil {
		t.Errorf("siblings at depth 16: %v", err)
	}
	n, err := parseJSON([]byte(`{"z":{"a":1},"a":{"a":[true,false,null]},"m":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range n.members {
		keys = append(keys, m.key)
	}
	if strings.Join(keys, ",") != "z,a,m" {
		t.Errorf("keys %v, want z,a,m in order", keys)
	}
	a, ok := n.get("a")
	if !ok {
		t.Fatal("no member a")
	}
	inner, _ := a.get("a")
	if inner.kind != kindArray || len(inner.items) != 3 || !inner.items[0].b || inner.items[1].b || inner.items[1].kind != kindBool || inner.items[2].kind != kindNull {
		t.Errorf("a.a = %+v", inner)
	}
	if _, ok := n.get("missing"); ok {
		t.Error("get found a missing key")
	}
	if m, _ := n.get("m"); m.kind != kindObject || len(m.members) != 0 {
		t.Errorf("m = %+v", m)
	}
}

// TestKindNames: the kinds are named for a person in error messages.
func TestKindNames(t *testing.T) {
	want := map[kind]string{kindNull: "null", kindBool: "true or false", kindNumber: "a number",
		kindString: "a string", kindArray: "a list", kindObject: "an object"}
	for k, s := range want {
		if k.String() != s {
			t.Errorf("%d: %q, want %q", k, k.String(), s)
		}
	}
}

// --- differential test against encoding/json ---

// jsonShape describes a valid JSON text as encoding/json sees it: its
// deepest nesting, whether an object repeats a key, whether a \u escape is
// a lone surrogate. parseJSON refuses those on purpose (the protocol reads
// I-JSON, RFC 7493); everything else must be read alike.
type jsonShape struct {
	depth        int
	duplicate    bool
	loneSurrgate bool
}

func shapeOf(t *testing.T, data []byte) jsonShape {
	t.Helper()
	var sh jsonShape
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		keyNow bool // the next token in this object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%q: json.Valid accepts it but Token fails: %v", data, err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].keyNow = true
			}
			continue
		}
		if top != nil && top.object && top.keyNow {
			k := tok.(string)
			if top.keys[k] {
				sh.duplicate = true
			}
			top.keys[k] = true
			top.keyNow = false
			continue
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{object: d == '{', keys: map[string]bool{}, keyNow: true})
			sh.depth = max(sh.depth, len(stack))
			continue
		}
		if top != nil && top.object {
			top.keyNow = true
		}
	}
	sh.loneSurrgate = hasLoneSurrogate(data)
	return sh
}

// hasLoneSurrogate scans the \u escapes of a valid JSON text.
func hasLoneSurrogate(data []byte) bool {
	hex := func(i int) (rune, bool) {
		if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
			return 0, false
		}
		var v rune
		for _, c := range data[i+2 : i+6] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= rune(c - '0')
			case c >= 'a' && c <= 'f':
				v |= rune(c-'a') + 10
			case c >= 'A' && c <= 'F':
				v |= rune(c-'A') + 10
			}
		}
		return v, true
	}
	in := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			in = !in
		case in && c == '\\':
			if data[i+1] != 'u' {
				i++
				continue
			}
			v, _ := hex(i)
			switch {
			case v >= 0xDC00 && v <= 0xDFFF:
				return true
			case v >= 0xD800 && v <= 0xDBFF:
				w, ok := hex(i + 6)
				if !ok || w < 0xDC00 || w > 0xDFFF {
					return true
				}
				i += 6
			}
			i += 5
		}
	}
	return false
}

// sameAsDecoder walks n alongside encoding/json's tokens: same structure,
// same keys in the same order, same decoded strings, same number texts.
func sameAsDecoder(t *testing.T, data []byte, n node) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(n *node) string
	walk = func(n *node) string {
		tok, err := dec.Token()
		if err != nil {
			return "token: " + err.Error()
		}
		switch n.kind {
		case kindNull:
			if tok != nil {
				return "null"
			}
		case kindBool:
			if b, ok := tok.(bool); !ok || b != n.b {
				return "bool"
			}
		case kindNumber:
			if num, ok := tok.(json.Number); !ok || string(num) != n.s {
				return "number " + n.s
			}
		case kindString:
			if s, ok := tok.(string); !ok || s != n.s {
				return "string " + strconvQuote(n.s) + " vs " + strconvQuote(s)
			}
		case kindArray:
			if tok != json.Delim('[') {
				return "array"
			}
			for i := range n.items {
				if d := walk(&n.items[i]); d != "" {
					return d
				}
			}
			if end, _ := dec.Token(); end != json.Delim(']') {
				return "array end"
			}
		case kindObject:
			if tok != json.Delim('{') {
				return "object"
			}
			for i := range n.members {
				k, _ := dec.Token()
				if ks, ok := k.(string); !ok || ks != n.members[i].key {
					return "key " + strconvQuote(n.members[i].key) + " vs " + strconvQuote(ks)
				}
				if d := walk(&n.members[i].val); d != "" {
					return d
				}
			}
			if end, _ := dec.Token(); end != json.Delim('}') {
				return "object end"
			}
		}
		return ""
	}
	if d := walk(&n); d != "" {
		t.Errorf("%q: parseJSON and encoding/json disagree: %s", data, d)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

var handInputs = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `1.5`, `1.5e+3`, `1E3`, `1e-0`, `-0.0e-0`,
	`01`, `00`, `-`, `--1`, `1.`, `.1`, `1e`, `1e+`, `+1`, `0x10`, `Infinity`, `NaN`, `1_000`,
	`""`, `"a"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u0000"`, `"\u001F"`, `"\u00e9"`, `"\uABCD"`,
	`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\x"`, `"\'"`, `"\u12"`, `"\u12345"`,
	"\"\x00\"", "\"\x1f\"", "\"\x7f\"", "\"\t\"", `"unterminated`, `"`, `"\`,
	`[]`, `[ ]`, `[1,2,3]`, `[1,,2]`, `[,1]`, `[1,]`, `[[[]]]`, `[`, `]`, `[1 2]`,
	`{}`, `{ }`, `{"a":1}`, `{"a" : 1 , "b" : [true , null]}`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`,
	`{1:2}`, `{'a':1}`, `{"a":1 "b":2}`, `{"a":{"b":{"c":{}}}}`, `{"":""}`, `{"a":1,"a":1}`,
	" \t\r\n{}\n", "\f{}", "\v1", "{}\x00", `{} {}`, `[] x`, `true false`, `nul`, `tru`, `fals`, `nulll`,
	`"é"`, `"😀"`, `"\u00e9é"`, `{"é":"😀"}`, `{"\u00e9":1,"é":2}`,
	strings.Repeat("[", 16) + strings.Repeat("]", 16),
	strings.Repeat("[", 17) + strings.Repeat("]", 17),
	strings.Repeat(`{"k":`, 16) + "0" + strings.Repeat("}", 16),
}

// genValue writes a random JSON value, valid unless a piece chosen for its
// strings or numbers is not.
func genValue(rng *rand.Rand, depth int) string {
	pieces := []string{"a", "é", "😀", " ", `\n`, `\t`, `\b`, `\f`, `\r`, `\/`, `\"`, `\\`, `\u0041`, `\u00e9`,
		`\u001f`, `\u2028`, `\ud83d\ude00`, `\uD834\uDD1E`, "<", "&", "\x7f", `\ud800`, `\x`, "\x01"}
	numbers := []string{"0", "-0", "1", "-12", "3.25", "1e3", "1.5E-2", "-0.0e+1", "01", "1.", "-", ".5"}
	switch k := rng.IntN(8); {
	case k == 0:
		return []string{"true", "false", "null"}[rng.IntN(3)]
	case k == 1:
		return numbers[rng.IntN(len(numbers))]
	case k <= 3 || depth > 4:
		var b strings.Builder
		b.WriteByte('"')
		for range rng.IntN(5) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteByte('"')
		return b.String()
	case k <= 5:
		items := make([]string, rng.IntN(4))
		for i := range items {
			items[i] = genValue(rng, depth+1)
		}
		return "[" + strings.Join(items, ",") + "]"
	default:
		members := make([]string, rng.IntN(4))
		for i := range members {
			key := []string{`"a"`, `"b"`, `"\u0061"`, `"é"`, `""`}[rng.IntN(5)]
			members[i] = key + ":" + genValue(rng, depth+1)
		}
		return "{" + strings.Join(members, ",") + "}"
	}
}

// mutate breaks a text at random: deletes, inserts or replaces a byte.
func mutate(rng *rand.Rand, s string) string {
	if s == "" {
		return s
	}
	alphabet := []byte(`{}[]:,"\ u0aeE.+-19tfn` + "\t\n\x00")
	b := []byte(s)
	i := rng.IntN(len(b))
	switch rng.IntN(3) {
	case 0:
		b = append(b[:i], b[i+1:]...)
	case 1:
		b = append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
	default:
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// TestParseJSONAgreesWithEncodingJSON: parseJSON accepts exactly what
// json.Valid accepts, apart from what it refuses on purpose (duplicate
// keys, invalid UTF-8, nesting deeper than 16, lone surrogates), and reads
// the same strings, keys and numbers.
func TestParseJSONAgreesWithEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(8785, 7493))
	inputs := append([]string(nil), handInputs...)
	for range 1500 {
		v := genValue(rng, 0)
		inputs = append(inputs, v)
		if rng.IntN(2) == 0 {
			inputs = append(inputs, mutate(rng, v))
		}
	}
	var accepted, refused, excluded int
	for _, in := range inputs {
		data := []byte(in)
		if !utf8.Valid(data) {
			excluded++
			continue
		}
		valid := json.Valid(data)
		n, err := parseJSON(data)
		if valid {
			sh := shapeOf(t, data)
			if sh.duplicate || sh.depth > maxDepth || sh.loneSurrgate {
				excluded++
				if err == nil {
					t.Errorf("%q: accepted, but it has a duplicate key, deep nesting or a lone surrogate (%+v)", in, sh)
				}
				continue
			}
		}
		if (err == nil) != valid {
			t.Errorf("%q: parseJSON error %v, json.Valid %v", in, err, valid)
			continue
		}
		if err != nil {
			refused++
			continue
		}
		accepted++
		sameAsDecoder(t, data, n)
	}
	t.Logf("%d inputs: %d accepted alike, %d refused alike, %d excluded", len(inputs), accepted, refused, excluded)
	if accepted < 300 || refused < 100 {
		t.Errorf("too few cases to mean anything: %d accepted, %d refused (%d excluded)", accepted, refused, excluded)
	}
}

// TestParseJSONDuplicateKeysInLargeObjects: past smallObject keys the
// duplicate check moves to a set; it still names the first key seen twice,
// and objects that merely share keys (siblings, nested, one parse after
// another on a pooled reader) are not duplicates.
func TestParseJSONDuplicateKeysInLargeObjects(t *testing.T) {
	object := func(n int, extra ...string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		for _, k := range extra {
			fmt.Fprintf(&b, `"%s":0,`, k)
		}
		return strings.TrimSuffix(b.String(), ",") + "}"
	}
	for _, n := range []int{2, smallObject - 1, smallObject, smallObject + 1, 3 * smallObject} {
		for _, dup := range []string{"k0", fmt.Sprintf("k%d", n/2), fmt.Sprintf("k%d", n-1)} {
			in := object(n, "other", dup, "k0")
			_, err := parseJSON([]byte(in))
			if want := fmt.Sprintf("not valid JSON: key %q appears twice", dup); err == nil || err.Error() != want {
				t.Errorf("%d keys, %s repeated: %v, want %s", n, dup, err, want)
			}
		}
	}
	big := object(2 * smallObject)
	fine := []string{
		big,
		`{"a":` + big + `,"b":` + big + `}`,
		`[` + big + `,` + big + `]`,
		strings.Replace(big, `"k1":1`, `"k1":`+big, 1),
	}
	for _, in := range fine {
		for range 2 {
			r := pooledReader()
			_, err := r.parse([]byte(in))
			r.release()
			if err != nil {
				t.Errorf("%.60s…: %v", in, err)
			}
		}
	}
}

// TestPooledReaderReadsLikeAFreshOne: a reader reused from the pool, its
// arenas full of an earlier parse, builds the same tree and refuses with
// the same error as a reader of its own.
func TestPooledReaderReadsLikeAFreshOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 11))
	for range 2000 {
		in := genValue(rng, 0)
		if rng.IntN(3) == 0 {
			in = mutate(rng, in)
		}
		want, wantErr := parseJSON([]byte(in))
		r := pooledReader()
		got, err := r.parse([]byte(in))
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: pooled %+v %v, fresh %+v %v", in, got, err, want, wantErr)
		}
		r.release()
	}
}

// TestSpecialByteIn: the eight-bytes-at-a-time test agrees with stringByte
// for every byte value at every place, and on random words.
func TestSpecialByteIn(t *testing.T) {
	bytewise := func(w [8]byte) bool {
		for _, c := range w {
			if stringByte[c] != plainASCII {
				return true
			}
		}
		return false
	}
	check := func(w [8]byte) {
		if got := specialByteIn(binary.LittleEndian.Uint64(w[:])); got != bytewise(w) {
			t.Fatalf("%q: %v, byte by byte %v", w, got, !got)
		}
	}
	for p := range 8 {
		for v := range 256 {
			for _, fill := range []byte{'a', ' ', '~', '!', '#', '[', ']', 0x7f} {
				w := [8]byte{fill, fill, fill, fill, fill, fill, fill, fill}
				w[p] = byte(v)
				check(w)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		var w [8]byte
		for i := range w {
			// Mostly plain ASCII, so that words with no special byte come up.
			if rng.IntN(8) == 0 {
				w[i] = byte(rng.IntN(256))
			} else {
				w[i] = byte(0x20 + rng.IntN(0x60))
			}
		}
		check(w)
	}
}
