package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

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
