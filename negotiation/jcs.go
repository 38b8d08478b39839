package negotiation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
)

// Canonical writes any JSON value in its RFC 8785 (JCS) form: object
// members sorted by their names' UTF-16 code units, no whitespace, strings
// escaped as appendJCSString does, numbers as ECMAScript writes them. The
// terms' canonical form (subject_hash) is a special case of it; the room
// log's chain (ChainLink) hashes whole events with it.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("canonical json: more than one value")
	}
	return appendCanonical(nil, v)
}

func appendCanonical(buf []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case bool:
		return strconv.AppendBool(buf, x), nil
	case string:
		return appendJCSString(buf, x), nil
	case json.Number:
		return appendJCSNumber(buf, x)
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendCanonical(buf, e); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(appendJCSString(buf, k), ':')
			var err error
			if buf, err = appendCanonical(buf, x[k]); err != nil {
				return nil, err
			}
		}
		return append(buf, '}'), nil
	}
	return nil, fmt.Errorf("canonical json: unexpected %T", v)
}

// compareUTF16 orders member names as RFC 8785 §3.2.3 does: by their
// UTF-16 code units.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// appendJCSNumber writes a number as ECMAScript's Number.prototype.toString
// does (RFC 8785 §3.2.2.3): the shortest form that reads back the same
// double, in plain notation from 1e-6 to 1e21, else with an exponent.
func appendJCSNumber(buf []byte, n json.Number) ([]byte, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("canonical json: number %s is not a finite double", n)
	}
	if f == 0 {
		return append(buf, '0'), nil
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	start := len(buf)
	buf = strconv.AppendFloat(buf, f, format, -1, 64)
	if format == 'e' {
		// Go writes e-07 and e+21; ECMAScript e-7 and e+21.
		if n := len(buf); n-start >= 4 && buf[n-4] == 'e' && buf[n-2] == '0' {
			buf[n-2] = buf[n-1]
			buf = buf[:n-1]
		}
	}
	return buf, nil
}
