package negotiation

// Valid terms are read in one pass, each value validated as soon as it is
// read, with no tree of the JSON: readTerms. It gives up at the first thing
// that is not plainly valid, and ParseTerms then reads the terms again
// through the tree (parseTermsTree), whose order of checks decides which
// error is reported: a JSON error anywhere comes before a wrong value, a
// duplicate key before an unknown field. So every message stays as the
// tree gives it, and readTerms never needs to make one. Values are checked
// by the same code as in the tree (parseValue, or the timerangeOf and
// moneyOf it ends in), on nodes made as they are read, and giving up is
// always safe. The tests and the fuzzer hold the two paths to the same
// results (sameAsTree).

// seen below has a bit per field.
const _ uint32 = 1 << (MaxFields - 1)

// readTerms reads terms from the start of r's data; false when they are
// not valid, or not plainly so.
func (s *Schema) readTerms(r *jsonReader) (*Terms, bool) {
	if !r.next('{') {
		return nil, false
	}
	var seen uint32 // the fields read, by index (MaxFields ≤ 32): a field twice is a duplicate key
	var spans [MaxFields]struct{ start, end int }
	// One backing array for every value, as in termsFromNode, sized for a
	// value per field and two per repeated field; append grows it if not.
	vals := make([]Value, 0, len(s.fields)+s.repeated)
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
	for i := range s.fields {
		if seen&(1<<i) != 0 {
			sp := spans[i]
			t.values[i] = vals[sp.start:sp.end:sp.end]
		}
	}
	s.seal(t, len(vals))
	return t, true
}

// readValues is appendValues as values are read.
func (f *Field) readValues(r *jsonReader, out []Value) ([]Value, bool) {
	if !f.Repeated {
		v, ok := f.readValue(r)
		if !ok {
			return out, false
		}
		return append(out, v), true
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

// readValue reads one value and checks it as parseValue does: with
// parseValue itself, or for a timerange or money, once its two members are
// read, with what parseValue checks them with.
func (f *Field) readValue(r *jsonReader) (Value, bool) {
	r.space()
	if r.pos >= len(r.data) {
		return Value{}, false
	}
	var v Value
	var err error
	switch c := r.data[r.pos]; {
	case c == '{' && f.Type == TypeTimerange:
		var start, end node
		if !r.readPair("start", &start, "end", &end) {
			return Value{}, false
		}
		v, err = timerangeOf(f.Name, &start, &end)
	case c == '{' && f.Type == TypeMoney:
		var amount, currency node
		if !r.readPair("amount", &amount, "currency", &currency) {
			return Value{}, false
		}
		v, err = f.moneyOf(f.Name, &amount, &currency)
	case c == '{' || c == '[':
		return Value{}, false
	default:
		var n node
		if n, err = r.value(); err != nil {
			return Value{}, false
		}
		v, err = f.parseValue(f.Name, &n)
	}
	return v, err == nil
}

// readPair reads an object of exactly the keys a and b, in either order,
// with plain values (no object or list), into va and vb.
func (r *jsonReader) readPair(a string, va *node, b string, vb *node) bool {
	r.pos++ // '{'
	var seenA, seenB bool
	for {
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return false
		}
		key, err := r.str()
		if err != nil || !r.next(':') {
			return false
		}
		var v *node
		switch {
		case key == a && !seenA:
			v, seenA = va, true
		case key == b && !seenB:
			v, seenB = vb, true
		default:
			return false
		}
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] == '{' || r.data[r.pos] == '[' {
			return false
		}
		if *v, err = r.value(); err != nil {
			return false
		}
		if seenA && seenB {
			return r.next('}')
		}
		if !r.next(',') {
			return false
		}
	}
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
