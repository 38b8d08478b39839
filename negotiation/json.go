package negotiation

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A strict JSON reader. encoding/json forgets the order of keys, keeps the
// last of two duplicate keys, rewrites invalid UTF-8 and parses 30.0 as an
// int; the protocol may do none of that, so schemas, terms and limits are
// read into this small tree instead.

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k kind) String() string {
	return [...]string{"null", "true or false", "a number", "a string", "a list", "an object"}[k]
}

type node struct {
	kind    kind
	b       bool
	s       string // the unescaped string, or a number's literal text
	items   []node
	members []member
}

type member struct {
	key string
	val node
}

// get returns the member named key.
func (n *node) get(key string) (*node, bool) {
	for i := range n.members {
		if n.members[i].key == key {
			return &n.members[i].val, true
		}
	}
	return nil, false
}

const maxDepth = 16

type jsonReader struct {
	data  []byte
	src   string // data as one string: strings without escapes are slices of it, not copies
	pos   int
	depth int
	// Stacks that members and items are gathered on, then copied out at
	// their exact size: appending straight into each node's slice made
	// most of the garbage of a parse.
	members []member
	items   []node
}

// parseJSON reads exactly one JSON value. Duplicate keys, invalid UTF-8,
// nesting deeper than maxDepth and trailing bytes are errors.
func parseJSON(data []byte) (node, error) {
	r := jsonReader{data: data, src: string(data), members: make([]member, 0, 32), items: make([]node, 0, 16)}
	r.space()
	n, err := r.value()
	if err != nil {
		return node{}, err
	}
	r.space()
	if r.pos != len(r.data) {
		return node{}, r.fail("unexpected data after the value")
	}
	return n, nil
}

func (r *jsonReader) fail(what string) error {
	return fmt.Errorf("not valid JSON: %s at byte %d", what, r.pos)
}

func (r *jsonReader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *jsonReader) value() (node, error) {
	if r.pos >= len(r.data) {
		return node{}, r.fail("unexpected end")
	}
	switch c := r.data[r.pos]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"':
		s, err := r.str()
		return node{kind: kindString, s: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return r.number()
	default:
		for _, lit := range []struct {
			text string
			n    node
		}{{"true", node{kind: kindBool, b: true}}, {"false", node{kind: kindBool}}, {"null", node{kind: kindNull}}} {
			if len(r.data)-r.pos >= len(lit.text) && string(r.data[r.pos:r.pos+len(lit.text)]) == lit.text {
				r.pos += len(lit.text)
				return lit.n, nil
			}
		}
		return node{}, r.fail("unexpected character")
	}
}

func (r *jsonReader) enter() error {
	r.depth++
	if r.depth > maxDepth {
		return r.fail(fmt.Sprintf("nested deeper than %d levels", maxDepth))
	}
	r.pos++
	r.space()
	return nil
}

func (r *jsonReader) object() (node, error) {
	if err := r.enter(); err != nil {
		return node{}, err
	}
	n := node{kind: kindObject}
	mark := len(r.members)
	defer func() { r.members = r.members[:mark] }()
	if r.pos < len(r.data) && r.data[r.pos] == '}' {
		r.pos++
		r.depth--
		return n, nil
	}
	for {
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return node{}, r.fail("expected a key")
		}
		key, err := r.str()
		if err != nil {
			return node{}, err
		}
		for i := mark; i < len(r.members); i++ {
			if r.members[i].key == key {
				return node{}, fmt.Errorf("not valid JSON: key %q appears twice", key)
			}
		}
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] != ':' {
			return node{}, r.fail("expected ':'")
		}
		r.pos++
		r.space()
		v, err := r.value()
		if err != nil {
			return node{}, err
		}
		r.members = append(r.members, member{key: key, val: v})
		r.space()
		if r.pos < len(r.data) && r.data[r.pos] == ',' {
			r.pos++
			r.space()
			continue
		}
		if r.pos < len(r.data) && r.data[r.pos] == '}' {
			r.pos++
			r.depth--
			n.members = append([]member(nil), r.members[mark:]...)
			return n, nil
		}
		return node{}, r.fail("expected ',' or '}'")
	}
}

func (r *jsonReader) array() (node, error) {
	if err := r.enter(); err != nil {
		return node{}, err
	}
	n := node{kind: kindArray}
	mark := len(r.items)
	defer func() { r.items = r.items[:mark] }()
	if r.pos < len(r.data) && r.data[r.pos] == ']' {
		r.pos++
		r.depth--
		return n, nil
	}
	for {
		v, err := r.value()
		if err != nil {
			return node{}, err
		}
		r.items = append(r.items, v)
		r.space()
		if r.pos < len(r.data) && r.data[r.pos] == ',' {
			r.pos++
			r.space()
			continue
		}
		if r.pos < len(r.data) && r.data[r.pos] == ']' {
			r.pos++
			r.depth--
			n.items = append([]node(nil), r.items[mark:]...)
			return n, nil
		}
		return node{}, r.fail("expected ',' or ']'")
	}
}

func (r *jsonReader) number() (node, error) {
	start := r.pos
	digits := func() int {
		n := 0
		for r.pos < len(r.data) && r.data[r.pos] >= '0' && r.data[r.pos] <= '9' {
			r.pos++
			n++
		}
		return n
	}
	if r.data[r.pos] == '-' {
		r.pos++
	}
	if r.pos < len(r.data) && r.data[r.pos] == '0' {
		r.pos++
	} else if digits() == 0 {
		return node{}, r.fail("expected a digit")
	}
	if r.pos < len(r.data) && r.data[r.pos] == '.' {
		r.pos++
		if digits() == 0 {
			return node{}, r.fail("expected a digit after '.'")
		}
	}
	if r.pos < len(r.data) && (r.data[r.pos] == 'e' || r.data[r.pos] == 'E') {
		r.pos++
		if r.pos < len(r.data) && (r.data[r.pos] == '+' || r.data[r.pos] == '-') {
			r.pos++
		}
		if digits() == 0 {
			return node{}, r.fail("expected a digit in the exponent")
		}
	}
	return node{kind: kindNumber, s: r.src[start:r.pos]}, nil
}

// str reads a string starting at its opening quote.
func (r *jsonReader) str() (string, error) {
	r.pos++
	start := r.pos
	// Fast path: no escapes.
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		if c == '"' {
			s := r.src[start:r.pos]
			if !utf8.ValidString(s) {
				return "", r.fail("invalid UTF-8 in a string")
			}
			r.pos++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", r.fail("control character in a string")
		}
		r.pos++
	}
	buf := append([]byte(nil), r.data[start:r.pos]...)
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				return "", r.fail("invalid UTF-8 in a string")
			}
			r.pos++
			return string(buf), nil
		case c < 0x20:
			return "", r.fail("control character in a string")
		case c != '\\':
			buf = append(buf, c)
			r.pos++
			continue
		}
		r.pos++
		if r.pos >= len(r.data) {
			break
		}
		e := r.data[r.pos]
		r.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			c1, ok := r.hex4()
			if !ok {
				return "", r.fail("bad \\u escape")
			}
			ru := rune(c1)
			if utf16.IsSurrogate(ru) {
				if ru >= 0xDC00 || r.pos+1 >= len(r.data) || r.data[r.pos] != '\\' || r.data[r.pos+1] != 'u' {
					return "", r.fail("lone surrogate in a \\u escape")
				}
				r.pos += 2
				c2, ok := r.hex4()
				if !ok {
					return "", r.fail("bad \\u escape")
				}
				ru = utf16.DecodeRune(ru, rune(c2))
				if ru == utf8.RuneError {
					return "", r.fail("lone surrogate in a \\u escape")
				}
			}
			buf = utf8.AppendRune(buf, ru)
		default:
			return "", r.fail("bad escape")
		}
	}
	return "", r.fail("unterminated string")
}

func (r *jsonReader) hex4() (uint64, bool) {
	if r.pos+4 > len(r.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(r.data[r.pos:r.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	r.pos += 4
	return v, true
}
