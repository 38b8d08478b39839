package negotiation

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// MaxSafeInt is the largest int a JSON number holds exactly everywhere
// (RFC 8785 serializes numbers as IEEE 754 doubles).
const MaxSafeInt = 1<<53 - 1

// Value is one validated, normalized value of a field.
type Value struct {
	Text     string          // string and enum; a date as YYYY-MM-DD
	Int      int64           // int
	Bool     bool            // bool
	Start    time.Time       // timerange start in UTC; a date at 00:00 UTC
	End      time.Time       // timerange end in UTC
	Amount   decimal.Decimal // money
	Currency string          // money
}

// Terms are validated terms: every value checked against one schema,
// normalized, and hashed.
type Terms struct {
	schema    *Schema
	values    [][]Value // by the schema's field index; nil when absent
	canonical []byte
	hash      SubjectHash
}

// Values returns a field's values (one unless the field is repeated).
func (t *Terms) Values(field string) ([]Value, bool) {
	i := t.schema.index(field)
	if i < 0 || t.values[i] == nil {
		return nil, false
	}
	return t.values[i], true
}

// Has reports whether the terms hold the field.
func (t *Terms) Has(field string) bool { _, ok := t.Values(field); return ok }

// Canonical is the normalized terms in RFC 8785 form: what subject_hash hashes.
func (t *Terms) Canonical() []byte { return t.canonical }

// Hash is the terms' subject_hash.
func (t *Terms) Hash() SubjectHash { return t.hash }

// termsErr is a rule of terms broken at at ("" for the terms as a
// whole): key is the rule's text in the catalog, format the same in English.
func termsErr(at, key, format string, args ...any) *Error {
	return ruleErr(CodeInvalidTerms, at, key, format, args...)
}

// ParseTerms validates terms against a schema, strictly and totally:
// nothing is coerced, trimmed or defaulted, and the first broken rule
// rejects the whole terms with a message that names the field.
func (s *Schema) ParseTerms(data []byte) (*Terms, error) {
	if len(data) > MaxTermsBytes {
		return nil, termsErr("", "rule.terms_too_large", "terms are larger than %d bytes", MaxTermsBytes)
	}
	r := pooledReader()
	defer r.release()
	r.reset(data)
	if t, ok := s.readTerms(r); ok {
		return t, nil
	}
	return s.parseTermsTree(r, data)
}

// parseTermsTree reads terms through a tree of the whole JSON first: the
// way that decides which error invalid terms get.
func (s *Schema) parseTermsTree(r *jsonReader, data []byte) (*Terms, error) {
	root, err := r.parse(data)
	if err != nil {
		return nil, termsErr("terms", "rule.json", "%s", err.Error())
	}
	return s.termsFromNode(&root)
}

func (s *Schema) termsFromNode(root *node) (*Terms, error) {
	if root.kind != kindObject {
		return nil, termsErr("", "rule.terms_not_object", "terms must be an object of fields, not %s", root.kind.String())
	}
	t := &Terms{schema: s, values: make([][]Value, len(s.fields))}
	// One backing array for every value: a value per field, or per element.
	n := 0
	for i := range root.members {
		n += max(1, len(root.members[i].val.items))
	}
	backing := make([]Value, 0, n)
	fi := -1
	for i := range root.members {
		m := &root.members[i]
		// Terms mostly list their fields in the schema's order: try the
		// field after the last one before searching them all.
		if fi++; fi >= len(s.fields) || s.fields[fi].Name != m.key {
			fi = s.index(m.key)
		}
		if fi < 0 {
			return nil, termsErr("", "rule.unknown_field", "unknown field: %s", Clip(m.key))
		}
		f := &s.fields[fi]
		start := len(backing)
		var err error
		if backing, err = f.appendValues(backing, &m.val); err != nil {
			return nil, err
		}
		t.values[fi] = backing[start:len(backing):len(backing)]
	}
	for i, f := range s.fields {
		if !f.Optional && t.values[i] == nil {
			return nil, termsErr("", "rule.missing_field", "missing required field: %s", f.Name)
		}
	}
	s.seal(t, n)
	return t, nil
}

// seal writes the canonical form of terms of n values, and hashes it.
func (s *Schema) seal(t *Terms, n int) {
	t.canonical = s.appendTerms(make([]byte, 0, 48*n+16), t)
	t.hash = hashOf(t.canonical)
}

// appendValues validates a field's value (or, repeated, its values) onto out.
func (f *Field) appendValues(out []Value, n *node) ([]Value, error) {
	if n.kind == kindNull {
		return nil, termsErr(f.Name, "rule.null", "must not be null; leave an optional field out instead")
	}
	if !f.Repeated {
		v, err := f.parseValue(f.Name, n)
		if err != nil {
			return nil, err
		}
		return append(out, v), nil
	}
	if n.kind != kindArray || len(n.items) == 0 {
		return nil, termsErr(f.Name, "rule.empty_list", "must be a non-empty list")
	}
	if len(n.items) > MaxRepeated {
		return nil, termsErr(f.Name, "rule.too_many_values", "at most %d values", MaxRepeated)
	}
	for i := range n.items {
		v, err := f.parseValue(f.Name, &n.items[i])
		if e, ok := err.(*Error); ok {
			// Name the element: "slots[1]: …" rather than "slots: …".
			e.Message = fmt.Sprintf("%s[%d]%s", f.Name, i, strings.TrimPrefix(e.Message, f.Name))
			e.At = fmt.Sprintf("%s[%d]%s", f.Name, i, strings.TrimPrefix(e.At, f.Name))
			return nil, e
		}
		out = append(out, v)
	}
	return out, nil
}

func (f *Field) parseValue(path string, n *node) (Value, error) {
	switch f.Type {
	case TypeString:
		if n.kind != kindString {
			return Value{}, termsErr(path, "rule.not_string", "must be a string, not %s", n.kind.String())
		}
		if utf8.RuneCountInString(n.s) > f.MaxLen {
			return Value{}, termsErr(path, "rule.too_long", plural(f.MaxLen, "at most %d character", "at most %d characters"), f.MaxLen)
		}
		if !validText(n.s, true) {
			return Value{}, termsErr(path, "rule.control_characters", "control characters are not allowed")
		}
		return Value{Text: n.s}, nil
	case TypeInt:
		i, err := parseInt(path, n)
		return Value{Int: i}, err
	case TypeBool:
		if n.kind != kindBool {
			return Value{}, termsErr(path, "rule.not_bool", "must be true or false, not %s", n.kind.String())
		}
		return Value{Bool: n.b}, nil
	case TypeEnum:
		if n.kind != kindString {
			return Value{}, termsErr(path, "rule.enum_not_string", "must be one of %s, not %s", strings.Join(f.Values, ", "), n.kind.String())
		}
		for _, v := range f.Values {
			if v == n.s {
				return Value{Text: v}, nil
			}
		}
		return Value{}, termsErr(path, "rule.not_one_of", "%q is not one of %s", Clip(n.s), strings.Join(f.Values, ", "))
	case TypeDate:
		d, err := parseDate(path, n)
		return Value{Text: n.s, Start: d}, err
	case TypeTimerange:
		return parseTimerange(path, n)
	case TypeMoney:
		return f.parseMoney(path, n)
	}
	return Value{}, termsErr(path, "rule.unsupported_type", "unsupported type %s", string(f.Type))
}

func parseInt(path string, n *node) (int64, error) {
	if n.kind != kindNumber {
		return 0, termsErr(path, "rule.not_int", "must be a whole number, not %s", n.kind.String())
	}
	if strings.ContainsAny(n.s, ".eE") {
		return 0, termsErr(path, "rule.int_written", "must be a whole number, written without a decimal point or exponent")
	}
	i, err := strconv.ParseInt(n.s, 10, 64)
	if err != nil || i > MaxSafeInt || i < -MaxSafeInt {
		return 0, termsErr(path, "rule.int_range", "must be between -%d and %d", int64(MaxSafeInt), int64(MaxSafeInt))
	}
	return i, nil
}

func parseTimerange(path string, n *node) (Value, error) {
	if n.kind != kindObject {
		return Value{}, termsErr(path, "rule.timerange_shape", "must be an object with start and end")
	}
	for _, m := range n.members {
		if m.key != "start" && m.key != "end" {
			return Value{}, termsErr(path, "rule.timerange_key", "unknown key: %s (a timerange has start and end)", Clip(m.key))
		}
	}
	sn, ok1 := n.get("start")
	en, ok2 := n.get("end")
	if !ok1 || !ok2 {
		return Value{}, termsErr(path, "rule.timerange_shape", "must be an object with start and end")
	}
	return timerangeOf(path, sn, en)
}

// timerangeOf checks a timerange's start and end.
func timerangeOf(path string, sn, en *node) (Value, error) {
	start, err := parseMoment(path, ".start", sn)
	if err != nil {
		return Value{}, err
	}
	end, err := parseMoment(path, ".end", en)
	if err != nil {
		return Value{}, err
	}
	if !end.After(start) {
		return Value{}, termsErr(path, "rule.end_after_start", "end must be after start")
	}
	return Value{Start: start, End: end}, nil
}

func (f *Field) parseMoney(path string, n *node) (Value, error) {
	if n.kind != kindObject {
		return Value{}, termsErr(path, "rule.money_shape", `must be an object like {"amount": "1500.00", "currency": "EUR"}`)
	}
	for _, m := range n.members {
		if m.key != "amount" && m.key != "currency" {
			return Value{}, termsErr(path, "rule.money_key", "unknown key: %s (money has amount and currency)", Clip(m.key))
		}
	}
	an, ok1 := n.get("amount")
	cn, ok2 := n.get("currency")
	if !ok1 || !ok2 {
		return Value{}, termsErr(path, "rule.money_shape", `must be an object like {"amount": "1500.00", "currency": "EUR"}`)
	}
	return f.moneyOf(path, an, cn)
}

// moneyOf checks money's amount and currency.
func (f *Field) moneyOf(path string, an, cn *node) (Value, error) {
	if cn.kind != kindString {
		return Value{}, termsErr(path+".currency", "rule.currency_shape", "must be an ISO 4217 code like EUR")
	}
	digits, ok := MinorDigits(cn.s)
	if !ok && iso4217NoMinorUnit[cn.s] {
		return Value{}, termsErr(path+".currency", "money18_rule.currency_no_minor_unit", "%q has no minor unit in ISO 4217: no amount can be written in it", cn.s)
	} else if !ok {
		return Value{}, termsErr(path+".currency", "rule.currency_unknown", "%q is not an ISO 4217 currency code", Clip(cn.s))
	}
	if f.Currency != "" && cn.s != f.Currency {
		return Value{}, termsErr(path+".currency", "rule.currency_fixed", "must be %s", f.Currency)
	}
	amount, err := parseAmount(path, ".amount", an, cn.s, digits)
	if err != nil {
		return Value{}, err
	}
	return Value{Amount: amount, Currency: cn.s}, nil
}

// maxAmountDigits bounds the whole part of an amount: no deal is worth more.
const maxAmountDigits = 18

// parseAmount reads an amount; path+suffix names it in errors (joined only
// then, as in parseMoment).
func parseAmount(path, suffix string, n *node, currency string, digits int) (decimal.Decimal, error) {
	if n.kind == kindNumber && digits == 0 {
		return decimal.Decimal{}, termsErr(path+suffix, "money18_rule.amount_number_whole", `must be a string of digits like "1500" (%s has no decimals), not a number`, currency)
	} else if n.kind == kindNumber {
		return decimal.Decimal{}, termsErr(path+suffix, "rule.amount_number", `must be a decimal string like "1500.00", not a number`)
	}
	if n.kind != kindString {
		return decimal.Decimal{}, amountShapeErr(path+suffix, currency, digits)
	}
	s := n.s
	if strings.HasPrefix(s, "-") {
		return decimal.Decimal{}, termsErr(path+suffix, "rule.amount_negative", "must not be negative")
	}
	whole, frac, hasPoint := strings.Cut(s, ".")
	if !isDigits(whole) || (hasPoint && !isDigits(frac)) || (len(whole) > 1 && whole[0] == '0') {
		return decimal.Decimal{}, amountShapeErr(path+suffix, currency, digits)
	}
	if len(whole) > maxAmountDigits {
		return decimal.Decimal{}, termsErr(path+suffix, "rule.amount_digits", "at most %d digits before the decimal point", maxAmountDigits)
	}
	if len(frac) > digits {
		if digits == 0 {
			return decimal.Decimal{}, termsErr(path+suffix, "rule.amount_no_decimals", "%s has no decimals", currency)
		}
		return decimal.Decimal{}, termsErr(path+suffix, "rule.amount_decimals", "%s has at most %d decimals", currency, digits)
	}
	if len(whole)+len(frac) > 18 {
		return decimal.RequireFromString(s), nil
	}
	// What RequireFromString makes of it, without reading it again: the
	// digits as an int64 coefficient, scaled by the decimals.
	var c int64
	for i := 0; i < len(s); i++ {
		if s[i] != '.' {
			c = c*10 + int64(s[i]-'0')
		}
	}
	return decimal.New(c, -int32(len(frac))), nil
}

// amountShapeErr refuses an amount that is no decimal string, with an
// example the currency takes: "1500.00" is refused next in JPY.
func amountShapeErr(at, currency string, digits int) *Error {
	if digits == 0 {
		return termsErr(at, "money18_rule.amount_shape_whole", `must be a string of digits like "1500" (%s has no decimals)`, currency)
	}
	return termsErr(at, "rule.amount_shape", `must be a decimal string like "1500.00"`)
}

// appendTerms writes terms in canonical form: fields in name order, moments
// in UTC with Z (fractions only when non-zero), amounts with exactly the
// currency's minor digits, absent optional fields absent.
func (s *Schema) appendTerms(buf []byte, t *Terms) []byte {
	buf = append(buf, '{')
	first := true
	for _, fi := range s.sorted {
		f := &s.fields[fi]
		vals := t.values[fi]
		if vals == nil {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = appendJCSString(buf, f.Name)
		buf = append(buf, ':')
		if f.Repeated {
			buf = append(buf, '[')
		}
		for i := range vals {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = f.appendValue(buf, &vals[i])
		}
		if f.Repeated {
			buf = append(buf, ']')
		}
	}
	return append(buf, '}')
}

func (f *Field) appendValue(buf []byte, v *Value) []byte {
	switch f.Type {
	case TypeString, TypeEnum, TypeDate:
		return appendJCSString(buf, v.Text)
	case TypeInt:
		return appendJCSInt(buf, v.Int)
	case TypeBool:
		return strconv.AppendBool(buf, v.Bool)
	case TypeTimerange:
		buf = append(buf, `{"end":"`...)
		buf = appendMoment(buf, v.End)
		buf = append(buf, `","start":"`...)
		buf = appendMoment(buf, v.Start)
		return append(buf, `"}`...)
	case TypeMoney:
		digits, _ := MinorDigits(v.Currency)
		buf = append(buf, `{"amount":"`...)
		buf = appendAmount(buf, v.Amount, digits)
		buf = append(buf, `","currency":`...)
		buf = appendJCSString(buf, v.Currency)
		return append(buf, '}')
	}
	return buf
}

// appendAmount writes a non-negative amount with exactly digits decimals,
// as StringFixed(digits) does but without its three allocations, when it
// needs no rounding and has at most 18 digits in all (so its coefficient
// is an int64): every amount of valid terms but the very largest, which go
// through StringFixed.
func appendAmount(buf []byte, a decimal.Decimal, digits int) []byte {
	exp := int(a.Exponent())
	if a.Sign() < 0 || exp > 0 || -exp > digits || a.NumDigits() > 18 {
		return append(buf, a.StringFixed(int32(digits))...)
	}
	// The amount times 10^digits: zeros to have a digit before the point,
	// the coefficient, zeros up to digits decimals; then the point.
	var scratch [20]byte
	coef := strconv.AppendInt(scratch[:0], a.CoefficientInt64(), 10)
	for range digits + 1 - (len(coef) + digits + exp) {
		buf = append(buf, '0')
	}
	buf = append(buf, coef...)
	for range digits + exp {
		buf = append(buf, '0')
	}
	if digits > 0 {
		buf = append(buf, 0)
		copy(buf[len(buf)-digits:], buf[len(buf)-digits-1:len(buf)-1])
		buf[len(buf)-digits-1] = '.'
	}
	return buf
}
