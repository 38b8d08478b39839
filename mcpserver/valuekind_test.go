package mcpserver

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestValueKindAsEncodingJSON: a params member of the wrong type is named
// by its kind as encoding/json names it (string, object, array, bool,
// number), read from segmentio's type error, which quotes the value's
// first bytes: every kind, into a number and into a string.
func TestValueKindAsEncodingJSON(t *testing.T) {
	for _, v := range []string{`"x"`, `""`, `"\"q"`, `{}`, `{"a":1}`, `[]`, `[true]`, `true`, `false`, `7`, `-1.5e3`, `0`} {
		var dst struct {
			N int    `json:"n"`
			S string `json:"s"`
		}
		for _, member := range []string{"n", "s"} {
			body := []byte(`{"` + member + `":` + v + `}`)
			want, ok := errors.AsType[*json.UnmarshalTypeError](json.Unmarshal(body, &dst))
			if !ok {
				continue // the value fits the member
			}
			got, ok := errors.AsType[*json.UnmarshalTypeError](sdkUnmarshal(body, &dst))
			if !ok {
				t.Fatalf("%s: segmentio read it, encoding/json did not", body)
			}
			wantKind := want.Value
			if strings.HasPrefix(wantKind, "number ") { // "number -1.5e3"
				wantKind = "number"
			}
			if k := valueKind(got.Value); k != wantKind {
				t.Errorf("%s: valueKind(%q) = %q, want %q", body, got.Value, k, wantKind)
			}
		}
	}
}
