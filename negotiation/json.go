package negotiation

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strconv"
	"sync"
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
	// keyHashes[i] is the hash of members[i].key: the duplicate check
	// compares hashes and only compares the keys when two hashes match.
	keyHashes []uint64
	seed      maphash.Seed
	// Objects with more than smallObject keys check duplicates in a set
	// instead, one per depth (only one object is open at each depth).
	keySets [maxDepth + 1]map[string]struct{}
	// A pooled reader copies members and items out into these arenas
	// instead of allocating per node. Nil for a reader of its own.
	memberArena []member
	itemArena   []node
	usedTree    bool // since the last release
}

// smallObject is how many keys an object may have before its duplicate
// check moves from comparing hashes (quadratic, but fast for the sizes
// schemas and terms have) to a set.
const smallObject = 32

// parseJSON reads exactly one JSON value. Duplicate keys, invalid UTF-8,
// nesting deeper than maxDepth and trailing bytes are errors.
func parseJSON(data []byte) (node, error) {
	r := jsonReader{members: make([]member, 0, 32), items: make([]node, 0, 16), seed: maphash.MakeSeed()}
	return r.parse(data)
}

// readers keep their stacks and arenas between parses: a parse of terms
// then allocates almost nothing but the copy of its input.
var readers = sync.Pool{New: func() any {
	return &jsonReader{seed: maphash.MakeSeed(), memberArena: make([]member, 0, 64), itemArena: make([]node, 0, 16)}
}}

// pooledReader returns a reader whose tree lives in buffers it reuses: the
// nodes it returns are valid until release, and must not be kept after
// (their strings may: they never point into the reader's buffers).
func pooledReader() *jsonReader { return readers.Get().(*jsonReader) }

// The most a pooled reader keeps between parses; a larger document's
// buffers are left to the garbage collector.
const maxPooledNodes = 4096

// release clears what the reader read (so that the pool does not keep the
// last input alive) and returns it to the pool.
func (r *jsonReader) release() {
	r.data, r.src = nil, ""
	if r.usedTree {
		clear(r.members[:cap(r.members)])
		clear(r.items[:cap(r.items)])
		clear(r.memberArena)
		clear(r.itemArena)
		r.usedTree = false
	}
	if cap(r.members)+cap(r.memberArena) > maxPooledNodes || cap(r.items)+cap(r.itemArena) > maxPooledNodes {
		return
	}
	for i, set := range r.keySets {
		if len(set) > maxPooledNodes {
			r.keySets[i] = nil // clear would keep its room
		}
	}
	r.members, r.items, r.keyHashes = r.members[:0], r.items[:0], r.keyHashes[:0]
	r.memberArena, r.itemArena = r.memberArena[:0], r.itemArena[:0]
	readers.Put(r)
}

// reset points the reader at the start of data.
func (r *jsonReader) reset(data []byte) {
	r.data, r.src, r.pos, r.depth = data, string(data), 0, 0
}

func (r *jsonReader) parse(data []byte) (node, error) {
	r.reset(data)
	r.usedTree = true
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

// keepMembers copies an object's members off the stack: into the arena
// when the reader has one (a new, larger chunk when it is full; earlier
// nodes keep the chunk they were carved from), else into a new slice.
func (r *jsonReader) keepMembers(ms []member) []member {
	if r.memberArena == nil {
		return append([]member(nil), ms...)
	}
	if cap(r.memberArena)-len(r.memberArena) < len(ms) {
		r.memberArena = make([]member, 0, max(2*cap(r.memberArena), len(ms)))
	}
	start := len(r.memberArena)
	r.memberArena = append(r.memberArena, ms...)
	return r.memberArena[start:len(r.memberArena):len(r.memberArena)]
}

// keepItems is keepMembers for an array's items.
func (r *jsonReader) keepItems(items []node) []node {
	if r.itemArena == nil {
		return append([]node(nil), items...)
	}
	if cap(r.itemArena)-len(r.itemArena) < len(items) {
		r.itemArena = make([]node, 0, max(2*cap(r.itemArena), len(items)))
	}
	start := len(r.itemArena)
	r.itemArena = append(r.itemArena, items...)
	return r.itemArena[start:len(r.itemArena):len(r.itemArena)]
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

// duplicate reports whether key (hashed h) is already a key of the object
// whose members start at mark on the stack.
func (r *jsonReader) duplicate(mark int, key string, h uint64) bool {
	for i := mark; i < len(r.members); i++ {
		if r.keyHashes[i] == h && r.members[i].key == key {
			return true
		}
	}
	return false
}

func (r *jsonReader) object() (node, error) {
	if err := r.enter(); err != nil {
		return node{}, err
	}
	n := node{kind: kindObject}
	mark := len(r.members)
	defer func() { r.members, r.keyHashes = r.members[:mark], r.keyHashes[:mark] }()
	if r.pos < len(r.data) && r.data[r.pos] == '}' {
		r.pos++
		r.depth--
		return n, nil
	}
	var set map[string]struct{} // this object's keys, once it has more than smallObject
	for {
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return node{}, r.fail("expected a key")
		}
		key, err := r.str()
		if err != nil {
			return node{}, err
		}
		var h uint64
		if set == nil && len(r.members)-mark == smallObject {
			set = r.keySet()
			for i := mark; i < len(r.members); i++ {
				set[r.members[i].key] = struct{}{}
			}
		}
		if set != nil {
			if _, dup := set[key]; dup {
				return node{}, fmt.Errorf("not valid JSON: key %q appears twice", key)
			}
			set[key] = struct{}{}
		} else if h = maphash.String(r.seed, key); r.duplicate(mark, key, h) {
			return node{}, fmt.Errorf("not valid JSON: key %q appears twice", key)
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
		r.keyHashes = append(r.keyHashes, h)
		r.space()
		if r.pos < len(r.data) && r.data[r.pos] == ',' {
			r.pos++
			r.space()
			continue
		}
		if r.pos < len(r.data) && r.data[r.pos] == '}' {
			r.pos++
			r.depth--
			n.members = r.keepMembers(r.members[mark:])
			return n, nil
		}
		return node{}, r.fail("expected ',' or '}'")
	}
}

// keySet returns the empty set of keys for the object open at this depth.
func (r *jsonReader) keySet() map[string]struct{} {
	set := r.keySets[r.depth]
	if set == nil {
		set = make(map[string]struct{}, 2*smallObject)
		r.keySets[r.depth] = set
	}
	clear(set)
	return set
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
			n.items = r.keepItems(r.items[mark:])
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

// stringByte sorts bytes for str's fast path (one table lookup a byte
// instead of four comparisons): ASCII that stands for itself, a byte of a
// longer UTF-8 sequence, or one that ends the fast path (a quote, a
// backslash, a control character).
var stringByte = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c < 0x20:
			t[c] = endsFastPath
		case c >= utf8.RuneSelf:
			t[c] = partOfRune
		}
	}
	return t
}()

const (
	plainASCII = iota
	partOfRune
	endsFastPath
)

// specialByteIn reports whether any of the 8 bytes in x is one that
// stringByte does not call plainASCII, eight bytes at a time: a byte b
// below 0x80 gets its high bit set in b-0x20 only if b < 0x20, in
// (b^'"')-1 only if b is '"', in (b^'\\')-1 only if b is '\\'; a byte from
// 0x80 has its own high bit. A subtraction borrows into the next byte only
// from a byte that is itself special, so the answer is exact: true if and
// only if some byte is special.
func specialByteIn(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^(ones*'"'), x^(ones*'\\')
	return ((x-ones*0x20)|(quote-ones)|(backslash-ones)|x)&highs != 0
}

// str reads a string starting at its opening quote.
func (r *jsonReader) str() (string, error) {
	r.pos++
	start := r.pos
	// Fast path: no escapes. Eight bytes at a time while none is special,
	// then byte by byte; the loops keep their place in locals, not in r, and
	// UTF-8 is checked only if a byte was not ASCII.
	ascii := true
	data, i := r.data, r.pos
	for ; i+8 <= len(data) && !specialByteIn(binary.LittleEndian.Uint64(data[i:])); i += 8 {
	}
	for ; i < len(data); i++ {
		if k := stringByte[data[i]]; k != plainASCII {
			if k == endsFastPath {
				break
			}
			ascii = false
		}
	}
	r.pos = i
	if r.pos < len(r.data) {
		switch r.data[r.pos] {
		case '"':
			s := r.src[start:r.pos]
			if !ascii && !utf8.ValidString(s) {
				return "", r.fail("invalid UTF-8 in a string")
			}
			r.pos++
			return s, nil
		case '\\': // read on below
		default:
			return "", r.fail("control character in a string")
		}
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
