package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The same job as ParseTerms (read, validate, canonicalize and hash terms,
// refusing with the same words) on go-json-experiment's jsontext instead of
// json.go and terms_fast.go: the library reads the JSON and refuses
// duplicate names and invalid UTF-8; the tree it builds is checked by the
// same termsFromNode. It stays here, beside the hand parser, as the measure
// of that parser (BenchmarkTermsLibrary) and as a second reader it must agree
// with (TestLibraryReadsTermsAlike).

// libReader builds the tree of json.go's node from jsontext's tokens.
type libReader struct {
	dec  *jsontext.Decoder
	in   bytes.Buffer // what dec reads: a bytes.Buffer is read in place
	data []byte
	src  string // data as one string: unescaped strings are slices of it
	// Stacks that members and items are gathered on, as in jsonReader.
	members []member
	items   []node
	// Arenas the members and items are copied out into, as in jsonReader.
	memberArena []member
	itemArena   []node
}

var libReaders = sync.Pool{New: func() any {
	r := &libReader{members: make([]member, 0, 32), items: make([]node, 0, 16),
		memberArena: make([]member, 0, 64), itemArena: make([]node, 0, 16)}
	r.dec = jsontext.NewDecoder(&r.in)
	return r
}}

// parseTermsLibrary is ParseTerms on jsontext.
func (s *Schema) parseTermsLibrary(data []byte) (*Terms, error) {
	if len(data) > MaxTermsBytes {
		return nil, termsErr("", "rule.terms_too_large", "terms are larger than %d bytes", MaxTermsBytes)
	}
	r := libReaders.Get().(*libReader)
	defer r.release()
	root, err := r.parse(data)
	if err != nil {
		return nil, termsErr("terms", "rule.json", "%s", err.Error())
	}
	return s.termsFromNode(&root)
}

func (r *libReader) release() {
	r.data, r.src = nil, ""
	clear(r.members[:cap(r.members)])
	clear(r.items[:cap(r.items)])
	clear(r.memberArena)
	clear(r.itemArena)
	r.members, r.items = r.members[:0], r.items[:0]
	r.memberArena, r.itemArena = r.memberArena[:0], r.itemArena[:0]
	r.in = bytes.Buffer{}
	r.dec.Reset(&r.in)
	libReaders.Put(r)
}

// parse reads exactly one JSON value, as parseJSON does.
func (r *libReader) parse(data []byte) (node, error) {
	r.data, r.src = data, string(data)
	r.in = *bytes.NewBuffer(data)
	r.dec.Reset(&r.in)
	n, err := r.value(topValue)
	if err != nil {
		return node{}, err
	}
	if end := skipSpace(data, int(r.dec.InputOffset())); end != len(data) {
		return node{}, jsonFail("unexpected data after the value", end)
	}
	return n, nil
}

// Where a failed read started, for explain: what the hand parser expects
// there, and in which container.
type readState uint8

const (
	topValue        readState = iota // the one value
	afterKey                         // ':' and the member's value
	afterOpenObject                  // a key or '}'
	afterMember                      // ',' and a key, or '}'
	afterOpenArray                   // an item or ']'
	afterItem                        // ',' and an item, or ']'
)

func (r *libReader) value(st readState) (node, error) {
	from := int(r.dec.InputOffset())
	switch r.dec.PeekKind() {
	case '{':
		return r.object()
	case '[':
		return r.array()
	case 0: // an error: the read below returns it
	}
	raw, err := r.dec.ReadValue()
	if err != nil {
		return node{}, r.explain(err, st, from)
	}
	end := int(r.dec.InputOffset())
	switch raw.Kind() {
	case 'n':
		return node{kind: kindNull}, nil
	case 't':
		return node{kind: kindBool, b: true}, nil
	case 'f':
		return node{kind: kindBool}, nil
	case '0':
		return node{kind: kindNumber, s: r.src[end-len(raw) : end]}, nil
	default:
		return node{kind: kindString, s: r.str(raw, end)}, nil
	}
}

// str unquotes a string the decoder read, ending at end: a slice of the
// input when it has no escape.
func (r *libReader) str(raw jsontext.Value, end int) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return r.src[end-len(raw)+1 : end-1]
	}
	b, _ := jsontext.AppendUnquote(nil, raw) // the decoder checked it
	return string(b)
}

// open reads '{' or '[' and holds the depth to maxDepth.
func (r *libReader) open() error {
	if _, err := r.dec.ReadToken(); err != nil {
		return err
	}
	if r.dec.StackDepth() > maxDepth {
		return jsonFail(fmt.Sprintf("nested deeper than %d levels", maxDepth), int(r.dec.InputOffset())-1)
	}
	return nil
}

func (r *libReader) object() (node, error) {
	if err := r.open(); err != nil {
		return node{}, err
	}
	mark := len(r.members)
	defer func() { r.members = r.members[:mark] }()
	st := afterOpenObject
	for {
		from := int(r.dec.InputOffset())
		switch r.dec.PeekKind() {
		case '}':
			r.dec.ReadToken()
			return node{kind: kindObject, members: keep(&r.memberArena, r.members[mark:])}, nil
		case '"':
		default: // not read: the decoder would read a whole object or list as a key before refusing it
			return node{}, r.explain(jsontext.ErrNonStringName, st, from)
		}
		raw, err := r.dec.ReadValue() // the key
		if err != nil {
			return node{}, r.explain(err, st, from)
		}
		key := r.str(raw, int(r.dec.InputOffset()))
		v, err := r.value(afterKey)
		if err != nil {
			return node{}, err
		}
		r.members = append(r.members, member{key: key, val: v})
		st = afterMember
	}
}

func (r *libReader) array() (node, error) {
	if err := r.open(); err != nil {
		return node{}, err
	}
	mark := len(r.items)
	defer func() { r.items = r.items[:mark] }()
	st := afterOpenArray
	for {
		if r.dec.PeekKind() == ']' {
			r.dec.ReadToken()
			return node{kind: kindArray, items: keep(&r.itemArena, r.items[mark:])}, nil
		}
		v, err := r.value(st)
		if err != nil {
			return node{}, err
		}
		r.items = append(r.items, v)
		st = afterItem
	}
}

// keep copies xs into the arena (a new, larger one when it is full).
func keep[T any](arena *[]T, xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	if cap(*arena)-len(*arena) < len(xs) {
		*arena = make([]T, 0, max(2*cap(*arena), len(xs)))
	}
	start := len(*arena)
	*arena = append(*arena, xs...)
	return (*arena)[start:len(*arena):len(*arena)]
}

func jsonFail(what string, at int) error {
	return fmt.Errorf("not valid JSON: %s at byte %d", what, at)
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// explain turns the decoder's error into the hand parser's words. jsontext
// names what it found ("invalid character ',' at start of value") at the
// start of the token it could not read; the protocol's messages name what
// was expected, at the byte where it was not found. So the token is read
// again from where the failed read started, by the grammar, as far as
// what is wrong.
func (r *libReader) explain(err error, st readState, from int) error {
	d, i := r.data, from
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && se.Err == jsontext.ErrDuplicateName {
		// The offset is the second key's opening quote.
		end, _ := scanString(d, int(se.ByteOffset))
		key, _ := jsontext.AppendUnquote(nil, d[se.ByteOffset:end])
		return fmt.Errorf("not valid JSON: key %q appears twice", key)
	}
	at := func(c byte) bool { i = skipSpace(d, i); return i < len(d) && d[i] == c }
	for {
		switch st {
		case afterKey:
			if !at(':') {
				return jsonFail("expected ':'", i)
			}
			i++
		case afterMember, afterItem:
			close, what := byte('}'), "expected ',' or '}'"
			if st == afterItem {
				close, what = ']', "expected ',' or ']'"
			}
			if at(close) {
				return fmt.Errorf("not valid JSON: %v", err) // not a fault the hand parser knows
			}
			if !at(',') {
				return jsonFail(what, i)
			}
			i++
		}
		var end int
		var fault error
		if st == afterOpenObject || st == afterMember {
			if !at('"') {
				return jsonFail("expected a key", i)
			}
			end, fault = scanString(d, i)
			st = afterKey
		} else {
			i = skipSpace(d, i)
			end, fault = scanScalar(d, i)
			switch st {
			case topValue:
				if fault == nil && skipSpace(d, end) != len(d) {
					return jsonFail("unexpected data after the value", skipSpace(d, end))
				}
			case afterOpenArray, afterItem:
				st = afterItem
			default:
				st = afterMember
			}
		}
		if fault != nil {
			return fault
		}
		if end == i || st == topValue { // a container, or a value with nothing wrong after it
			return fmt.Errorf("not valid JSON: %v", err) // not a fault the hand parser knows
		}
		i = end
	}
}

// scanScalar reads the value at d[i] by the grammar: where it ends, or
// what is wrong with it. A container ends where it starts (the decoder
// never fails on its first byte).
func scanScalar(d []byte, i int) (int, error) {
	switch {
	case i == len(d):
		return i, jsonFail("unexpected end", i)
	case d[i] == '{' || d[i] == '[':
		return i, nil
	case d[i] == '"':
		return scanString(d, i)
	case d[i] == '-' || (d[i] >= '0' && d[i] <= '9'):
		return scanNumber(d, i)
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(d[i:], []byte(lit)) {
			return i + len(lit), nil
		}
	}
	return i, jsonFail("unexpected character", i)
}

// scanString reads the string at d[i] (its opening quote): where it ends,
// or what is wrong with it, in the order the hand parser meets it: the
// first bad escape, control character or end of input, else invalid UTF-8
// at its closing quote.
func scanString(d []byte, i int) (int, error) {
	hex4 := func(j int) (rune, bool) {
		if j+4 > len(d) {
			return 0, false
		}
		v, err := strconv.ParseUint(string(d[j:j+4]), 16, 32)
		return rune(v), err == nil
	}
	start := i + 1
	for i++; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			if !utf8.Valid(d[start:i]) {
				return i, jsonFail("invalid UTF-8 in a string", i)
			}
			return i + 1, nil
		case c < 0x20:
			return i, jsonFail("control character in a string", i)
		case c != '\\':
			continue
		}
		if i++; i >= len(d) {
			break
		}
		switch d[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			ru, ok := hex4(i + 1)
			if !ok {
				return i, jsonFail(`bad \u escape`, i+1)
			}
			i += 4
			if utf16.IsSurrogate(ru) {
				if ru >= 0xDC00 || i+2 >= len(d) || d[i+1] != '\\' || d[i+2] != 'u' {
					return i, jsonFail(`lone surrogate in a \u escape`, i+1)
				}
				lo, ok := hex4(i + 3)
				if !ok {
					return i, jsonFail(`bad \u escape`, i+3)
				}
				if i += 6; utf16.DecodeRune(ru, lo) == utf8.RuneError {
					return i, jsonFail(`lone surrogate in a \u escape`, i+1)
				}
			}
		default:
			return i, jsonFail("bad escape", i+1)
		}
	}
	return len(d), jsonFail("unterminated string", len(d))
}

// scanNumber reads the number at d[i]: where it ends, or what is wrong.
func scanNumber(d []byte, i int) (int, error) {
	digits := func() int {
		n := 0
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
			n++
		}
		return n
	}
	if d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if digits() == 0 {
		return i, jsonFail("expected a digit", i)
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return i, jsonFail("expected a digit after '.'", i)
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return i, jsonFail("expected a digit in the exponent", i)
		}
	}
	return i, nil
}

// libraryDiffers says how the jsontext reader's answer for data differs
// from the hand parser's (the tree, or the error word for word); "" when
// it does not.
func libraryDiffers(data []byte) string {
	want, wantErr := parseJSON(data)
	r := libReaders.Get().(*libReader)
	defer r.release()
	got, err := r.parse(data)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		return fmt.Sprintf("%q: jsontext %v, hand %v", data, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%q: jsontext reads %+v, hand %+v", data, got, want)
	}
	return ""
}

// termsDiffer is libraryDiffers for terms: the same error, or the same
// canonical form and hash.
func termsDiffer(s *Schema, data []byte) string {
	want, wantErr := s.ParseTerms(data)
	got, err := s.parseTermsLibrary(data)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		return fmt.Sprintf("%q: jsontext %v, hand %v", data, err, wantErr)
	}
	if err == nil && (!bytes.Equal(got.Canonical(), want.Canonical()) || got.Hash() != want.Hash()) {
		return fmt.Sprintf("%q: jsontext reads %s, hand %s", data, got.Canonical(), want.Canonical())
	}
	return ""
}

// termsCases are what BenchmarkTermsLibrary reads: the largest valid terms,
// small ones, and the inputs an attacker would send.
func termsCases(tb testing.TB) []struct {
	name  string
	s     *Schema
	terms []byte
} {
	bigSchema, bigTerms := bigSchemaAndTerms()
	big, _, err := ParseSchema(bigSchema)
	if err != nil {
		tb.Fatal(err)
	}
	small, _, err := ParseSchema([]byte(`{"place":{"type":"enum","label":"Where","values":["office","video"]},"qty":{"type":"int","label":"Qty"},"note":{"type":"string","label":"Note","optional":true}}`))
	if err != nil {
		tb.Fatal(err)
	}
	all, _, err := ParseSchema(fuzzSchema)
	if err != nil {
		tb.Fatal(err)
	}
	huge := `{"topic":"` + strings.Repeat("négociation ", MaxTermsBytes/14) + `"}`
	return []struct {
		name  string
		s     *Schema
		terms []byte
	}{
		{"24fields", big, bigTerms},
		{"3fields", small, []byte(`{"place":"video","qty":3,"note":"after lunch"}`)},
		{"deep", all, []byte(`{"topic":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`)},
		{"hugeString", all, []byte(huge)},
		{"hugeStringBadUTF8", all, []byte(huge[:len(huge)-3] + "\xff\"}")},
		{"manyKeys", all, []byte(`{` + strings.Repeat(`"qty":1,`, MaxTermsBytes/9) + `"qty":1}`)},
	}
}

// BenchmarkTermsLibrary: the hand parser (ParseTerms) and jsontext
// (parseTermsLibrary) on the same terms; for benchstat, compare the
// reader=hand and reader=jsontext halves.
func BenchmarkTermsLibrary(b *testing.B) {
	for _, c := range termsCases(b) {
		for _, reader := range []struct {
			name  string
			parse func(*Schema, []byte) (*Terms, error)
		}{{"hand", (*Schema).ParseTerms}, {"jsontext", (*Schema).parseTermsLibrary}} {
			b.Run("case="+c.name+"/reader="+reader.name, func(b *testing.B) {
				_, wantErr := c.s.ParseTerms(c.terms)
				b.ReportAllocs()
				b.SetBytes(int64(len(c.terms)))
				for b.Loop() {
					t, err := reader.parse(c.s, c.terms)
					if (err == nil) != (wantErr == nil) {
						b.Fatal(err)
					}
					if t != nil {
						_ = t.Hash()
					}
				}
			})
		}
	}
}

// TestLibraryReadsTermsAlike: on every case of vectors/terms.json, and on
// every terms one edit away from its valid ones, jsontext's reader gives the
// same error word for word, or the same canonical form and hash.
func TestLibraryReadsTermsAlike(t *testing.T) {
	var f struct {
		Description string                     `json:"description"`
		Schemas     map[string]json.RawMessage `json:"schemas"`
		Cases       []struct {
			Name   string          `json:"name"`
			Schema string          `json:"schema"`
			Terms  json.RawMessage `json:"terms"`
			Raw    string          `json:"raw"`
			Latin1 bool            `json:"latin1"`
			Error  string          `json:"error"`
		} `json:"cases"`
	}
	readVector(t, "terms.json", &f)
	alphabet := []byte("{}[]:,\"\\ \t0159.eE+-ZTtrunlfasx\x00\xc3\xff")
	n := 0
	try := func(s *Schema, data string) {
		n++
		if d := termsDiffer(s, []byte(data)); d != "" {
			t.Error(d)
		}
	}
	for _, c := range f.Cases {
		s := mustSchema(t, f.Schemas[c.Schema])
		data := string(c.Terms)
		if c.Raw != "" {
			data = c.Raw
			if c.Latin1 {
				b := []byte(nil)
				for _, r := range c.Raw {
					b = append(b, byte(r))
				}
				data = string(b)
			}
		}
		if _, err := s.parseTermsLibrary([]byte(data)); errText(err) != c.Error {
			t.Errorf("%s: jsontext: error %q, want %q", c.Name, errText(err), c.Error)
		}
		if c.Error != "" {
			continue
		}
		for i := 0; i <= len(data); i++ {
			if i < len(data) {
				try(s, data[:i]+data[i+1:])
			}
			for _, c := range alphabet {
				try(s, data[:i]+string(c)+data[i:])
				if i < len(data) {
					try(s, data[:i]+string(c)+data[i+1:])
				}
			}
		}
	}
	for _, c := range termsCases(t) {
		try(c.s, string(c.terms))
	}
	t.Logf("%d terms", n)
}

// TestLibraryReadsJSONAlike: jsontext's reader builds the same tree as
// parseJSON, or refuses with the same words, on hand-picked and random
// JSON, broken at random.
func TestLibraryReadsJSONAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(7493, 8259))
	inputs := append([]string(nil), handInputs...)
	for range 20000 {
		v := genValue(rng, 0)
		inputs = append(inputs, v, mutate(rng, v), mutate(rng, mutate(rng, v)))
		if b := []byte(v); len(b) > 0 {
			b[rng.IntN(len(b))] = byte(0x80 + rng.IntN(0x80)) // a byte of UTF-8, or not
			inputs = append(inputs, string(b), v[:rng.IntN(len(v))])
		}
	}
	differ := 0
	for _, in := range inputs {
		if d := libraryDiffers([]byte(in)); d != "" {
			if differ++; differ <= 20 {
				t.Error(d)
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d inputs read differently", differ, len(inputs))
	}
}

// FuzzLibraryReadsAlike: any input, read as JSON and as terms, gets the
// same answer from both readers.
func FuzzLibraryReadsAlike(f *testing.F) {
	for _, in := range handInputs {
		f.Add([]byte(in))
	}
	seeds(f, "terms.json", field("terms"))
	s, _, err := ParseSchema(fuzzSchema)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if d := libraryDiffers(data); d != "" {
			t.Fatal(d)
		}
		if d := termsDiffer(s, data); d != "" {
			t.Fatal(d)
		}
	})
}
