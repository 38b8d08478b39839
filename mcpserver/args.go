package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// ruleUnknownArgument is the rule of a fault naming an argument the tool
// does not take (the others are the protocol's: negotiation.Rule…).
const ruleUnknownArgument = "unknown_argument"

// faults are every fault of a call's arguments, reported in one answer:
// the decoding's, then the handler's own rules.
type faults []negotiation.Fault

// add adds a fault, unless the field has one already or the arguments as
// a whole do (a wrong type and then its value's rule would say one thing
// twice).
func (f *faults) add(field, rule, format string, args ...any) {
	for _, had := range *f {
		if had.Field == field || had.Field == "arguments" {
			return
		}
	}
	*f = append(*f, negotiation.Fault{Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// needToken adds the fault of a missing room_token.
func (f *faults) needToken(token string) {
	if token == "" {
		f.add("room_token", negotiation.RuleMissingField, "room_token: required")
	}
}

// err is the refusal that names them all (nil: none).
func (f faults) err() error {
	if len(f) == 0 {
		return nil
	}
	return &app.Error{Code: app.ErrInvalid, Message: f[0].Message, Faults: f}
}

// decodeArgs reads a call's arguments strictly into a struct, argument by
// argument, and returns every fault: each unknown argument (with the ones
// the tool takes), each value of the wrong type (each element of a list).
// Arguments that are no JSON object, or give a key twice, are one fault.
func decodeArgs(raw json.RawMessage, into any) faults {
	var f faults
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil
	}
	if !utf8.Valid(raw) {
		// encoding/json would turn the bad bytes into U+FFFD: nothing is
		// coerced, so say it.
		f.add("arguments", negotiation.RuleInvalidValue, "arguments: not valid UTF-8")
		return f
	}
	if at, twice := duplicateKey(raw); twice {
		f.add(at, negotiation.RuleInvalidValue, "%s: given twice; give each key once", at)
	}
	members, err := objectMembers(raw)
	if err != nil {
		f.add("arguments", negotiation.RuleInvalidValue, "arguments must be a JSON object (%v)", err)
		return f
	}
	target := reflect.ValueOf(into).Elem()
	fields := argFields(target.Type())
	for _, m := range members {
		i, ok := fields[m.name]
		if !ok {
			f.add(m.name, ruleUnknownArgument, "unknown argument: %s (the arguments are %s)", m.name, argNames(target.Type()))
			continue
		}
		decodeArg(&f, m.name, m.value, target.Field(i))
	}
	return f
}

// decodeArg decodes one argument's value into v; a list element by
// element, so that each wrong one is named.
func decodeArg(f *faults, name string, value jsontext.Value, v reflect.Value) {
	if string(value) == "null" {
		return
	}
	raw := reflect.TypeFor[json.RawMessage]()
	if v.Kind() == reflect.Slice && value.Kind() == '[' && v.Type() != raw {
		var elems []json.RawMessage
		if err := json.Unmarshal(value, &elems); err == nil {
			out := reflect.MakeSlice(v.Type(), len(elems), len(elems))
			for i, e := range elems {
				if out.Index(i).Type() != raw && loneSurrogate(e) {
					f.add(fmt.Sprintf("%s[%d]", name, i), negotiation.RuleInvalidValue, "%s[%d]: %s", name, i, notUnicode)
				} else if err := json.Unmarshal(e, out.Index(i).Addr().Interface()); err != nil {
					f.add(fmt.Sprintf("%s[%d]", name, i), negotiation.RuleInvalidValue, "%s[%d]: %s", name, i, typeFault(err, out.Index(i).Type()))
				}
			}
			v.Set(out)
			return
		}
	}
	if v.Type() != raw && loneSurrogate(value) {
		f.add(name, negotiation.RuleInvalidValue, "%s: %s", name, notUnicode)
		return
	}
	if err := json.Unmarshal(value, v.Addr().Interface()); err != nil {
		f.add(name, negotiation.RuleInvalidValue, "%s: %s", name, typeFault(err, v.Type()))
	}
}

const notUnicode = `not valid Unicode (a \u escape of a lone surrogate)`

// loneSurrogate reports whether a value (valid UTF-8) escapes half a
// surrogate pair, which is no character: encoding/json would read it as
// U+FFFD. A value the protocol reads itself (terms, a schema: raw JSON)
// is its reader's to refuse.
func loneSurrogate(value []byte) bool {
	return bytes.Contains(value, []byte(`\u`)) && !jsontext.Value(value).IsValid(jsontext.AllowDuplicateNames(true))
}

// typeFault says what a value should have been.
func typeFault(err error, want reflect.Type) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if n, isNumber := strings.CutPrefix(te.Value, "number "); isNumber {
			return fmt.Sprintf("must be %s (got %s)", jsonKind(te.Type.Kind().String()), n) // a fraction for a whole number, or out of range
		}
		return fmt.Sprintf("must be %s, not %s", jsonKind(te.Type.Kind().String()), te.Value)
	}
	return fmt.Sprintf("must be %s", jsonKind(want.Kind().String()))
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "a list"
	case "struct", "map":
		return "an object"
	case "int", "int64":
		return "a whole number"
	case "float64":
		return "a number"
	}
	return fmt.Sprintf("a %s", goKind)
}

type member struct {
	name  string
	value jsontext.Value
}

// objectMembers are the members of a JSON object, in their order.
func objectMembers(raw json.RawMessage) ([]member, error) {
	// duplicateKey says a key given twice; a value's own faults (a lone
	// surrogate in terms) are its reader's to say.
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil {
		return nil, err
	} else if k := tok.Kind(); k != '{' {
		return nil, fmt.Errorf("not %s", map[jsontext.Kind]string{'[': "a list", '"': "a string", '0': "a number", 't': "true", 'f': "false", 'n': "null"}[k])
	}
	var out []member
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // before the next read voids the token
		value, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		out = append(out, member{name, value.Clone()})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return out, nil
}

// argFields maps each argument's name to its field of an arguments struct.
func argFields(t reflect.Type) map[string]int {
	out := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		if name := argName(t.Field(i)); name != "" {
			out[name] = i
		}
	}
	return out
}

// argNames lists the arguments a struct takes, in its order, less the old
// names still read (tagged `args:"old"`).
func argNames(t reflect.Type) string {
	var names []string
	for i := range t.NumField() {
		if name := argName(t.Field(i)); name != "" && t.Field(i).Tag.Get("args") != "old" {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

func argName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

// present reports whether an optional JSON argument was given (null counts
// as not given).
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(bytes.TrimSpace(raw)) != "null"
}

func optional(raw json.RawMessage) json.RawMessage {
	if present(raw) {
		return raw
	}
	return nil
}

// duplicateKey finds a key given twice in one object, at any depth
// (encoding/json would keep the last one silently): its path, dotted.
func duplicateKey(raw json.RawMessage) (string, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	for {
		_, err := dec.ReadToken()
		if err == io.EOF {
			return "", false
		}
		if err == nil {
			continue
		}
		var se *jsontext.SyntacticError
		if errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName) {
			at := strings.TrimPrefix(string(se.JSONPointer), "/")
			return strings.ReplaceAll(at, "/", "."), true
		}
		return "", false // malformed JSON: decoding says it
	}
}
