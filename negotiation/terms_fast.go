package negotiation

// Valid terms are read in one pass, each value validated as soon as it is
// read, with no tree of the JSON: readTerms. It gives up at the first thing
// that is not plainly valid, and ParseTerms then reads the terms again
// through the tree (parseTermsTree), whose order of checks decides which
// error is reported: a JSON error anywhere comes before a wrong value, a
// duplicate key before an unknown field. So every message stays as the
// tree gives it, and readTerms never needs to make one. Values are checked
// by the same parseValue, on nodes made as they are read, and giving up is
// always safe; FuzzParseTerms holds the two paths to the same results.

// readTerms reads terms from the start of r's data; false when they are
// not valid, or not plainly so.
func (s *Schema) readTerms(r *jsonReader) (*Terms, bool) {
	if !r.next('{') {
		return nil, false
	}
	var seen uint32 // the fields read, by index: a field twice is a duplicate key
	var spans [MaxFields]struct{ start, end int }
	vals := r.values[:0]
	fi := -1
	empty := r.next('}')
	for !empty {
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return nil, false
		}
		key, err := r.str()
		if err != nil {
			return nil, false
		}
		// As in termsFromNode: the field after the last one, else a search.
		if fi++; fi >= len(s.fields) || s.fields[fi].Name != key {
			fi = s.index(key)
		}
		if fi < 0 || seen&(1<<fi) != 0 || !r.next(':') {
			return nil, false
		}
		seen |= 1 << fi
		start := len(vals)
		var ok bool
		if vals, ok = s.fields[fi].readValues(r, vals); !ok {
			return nil, false
		}
		spans[fi].start, spans[fi].end = start, len(vals)
		if r.next('}') {
			break
		}
		if !r.next(',') {
			return nil, false
		}
	}
	r.values = vals // keep the scratch, grown, for the next terms
	r.space()
	if r.pos != len(r.data) {
		return nil, false
	}
	for i, f := range s.fields {
		if !f.Optional && seen&(1<<i) == 0 {
			return nil, false
		}
	}
	t := &Terms{schema: s, values: make([][]Value, len(s.fields))}
	backing := append([]Value(nil), vals...)
	for i := range s.fields {
		if seen&(1<<i) != 0 {
			sp := spans[i]
			t.values[i] = backing[sp.start:sp.end:sp.end]
		}
	}
	s.seal(t, len(vals))
	return t, true
}

// readValues is appendValues as values are read.
func (f *Field) readValues(r *jsonReader, out []Value) ([]Value, bool) {
	if !f.Repeated {
		v, ok := f.readValue(r)
		return append(out, v), ok
	}
	if !r.next('[') {
		return out, false
	}
	for n := 1; n <= MaxRepeated; n++ {
		v, ok := f.readValue(r)
		if !ok {
			return out, false
		}
		out = append(out, v)
		if r.next(']') {
			return out, true
		}
		if !r.next(',') {
			return out, false
		}
	}
	return out, false
}

// readValue reads one value and checks it with parseValue.
func (f *Field) readValue(r *jsonReader) (Value, bool) {
	r.space()
	if r.pos >= len(r.data) {
		return Value{}, false
	}
	var n node
	switch c := r.data[r.pos]; {
	case c == '{' && (f.Type == TypeTimerange || f.Type == TypeMoney):
		members, ok := r.readPair()
		if !ok {
			return Value{}, false
		}
		n = node{kind: kindObject, members: members}
	case c == '{' || c == '[':
		return Value{}, false
	default:
		var err error
		if n, err = r.value(); err != nil {
			return Value{}, false
		}
	}
	v, err := f.parseValue(f.Name, &n)
	return v, err == nil
}

// readPair reads an object of one or two members with plain values, all
// that a timerange or money is made of, into r.pair.
func (r *jsonReader) readPair() ([]member, bool) {
	r.pos++ // '{'
	for k := 0; k < len(r.pair); k++ {
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return nil, false
		}
		key, err := r.str()
		if err != nil || (k == 1 && key == r.pair[0].key) || !r.next(':') {
			return nil, false
		}
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] == '{' || r.data[r.pos] == '[' {
			return nil, false
		}
		v, err := r.value()
		if err != nil {
			return nil, false
		}
		r.pair[k] = member{key: key, val: v}
		if r.next('}') {
			return r.pair[:k+1], true
		}
		if !r.next(',') {
			return nil, false
		}
	}
	return nil, false
}

// next skips space and then c, if c is next.
func (r *jsonReader) next(c byte) bool {
	r.space()
	if r.pos < len(r.data) && r.data[r.pos] == c {
		r.pos++
		return true
	}
	return false
}
