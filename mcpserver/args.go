package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/taasky/taasky/app"
)

// decodeArgs reads a call's arguments strictly into a struct: an unknown
// argument or a wrong type is one clear error naming the argument.
func decodeArgs(raw json.RawMessage, into any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	if !utf8.Valid(raw) {
		// encoding/json would turn the bad bytes into U+FFFD: nothing is
		// coerced, so say it.
		return app.Errorf(app.ErrInvalid, "arguments: not valid UTF-8")
	}
	if err := uniqueKeys(raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(into)
	if err == nil && dec.More() {
		err = errors.New("trailing data")
	}
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "arguments"
		}
		return app.Errorf(app.ErrInvalid, "%s: must be %s, not %s", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return app.Errorf(app.ErrInvalid, "unknown argument: %s", strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
	}
	return app.Errorf(app.ErrInvalid, "arguments must be a JSON object (%v)", err)
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
	case "int", "int64", "float64":
		return "a number"
	}
	return fmt.Sprintf("a %s", goKind)
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

// uniqueKeys refuses arguments that give a key twice in one object, at any
// depth: encoding/json would keep the last one silently.
func uniqueKeys(raw json.RawMessage) error {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	for {
		_, err := dec.ReadToken()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			continue
		}
		var se *jsontext.SyntacticError
		if errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName) {
			at := strings.TrimPrefix(string(se.JSONPointer), "/")
			return app.Errorf(app.ErrInvalid, "%s: given twice; give each key once", strings.ReplaceAll(at, "/", "."))
		}
		return nil // malformed JSON: decoding says it
	}
}
