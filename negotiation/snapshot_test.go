package negotiation

import (
	"bytes"
	"strings"
	"testing"
)

func TestRestoreRefusals(t *testing.T) {
	p := joined(t, qty1)
	snap := p.r.Snapshot()
	cases := []struct {
		name   string
		snap   string
		limits [2][]byte
		prefix string
	}{
		{"not JSON", `{"state":`, p.limits, "restore room: unexpected end of JSON input"},
		{"a broken schema", strings.Replace(string(snap), `"label":"Quantity"`, `"label":""`, 1), p.limits, "restore room: schema 0: qty: label must be a string of 1 to 80 characters"},
		{"limits that do not parse", string(snap), [2][]byte{nil, []byte(`[]`)}, "restore room: limits 1: limits must be an object of fields"},
		{"terms the tabler's schema refuses", strings.Replace(string(snap), `"terms":[{"qty":1}]`, `"terms":[{"qty":1.5}]`, 1), p.limits, "restore room: table: qty: must be a whole number, written without a decimal point or exponent"},
	}
	for _, c := range cases {
		r, err := Restore([]byte(c.snap), c.limits)
		if r != nil || errText(err) != c.prefix {
			t.Errorf("%s: %q, want %q", c.name, errText(err), c.prefix)
		}
	}
	// A snapshot is stable: restoring and snapshotting again gives the same bytes.
	r, err := Restore(snap, p.limits)
	if err != nil || !bytes.Equal(r.Snapshot(), snap) {
		t.Errorf("restore: %v\n got %s\nwant %s", err, r.Snapshot(), snap)
	}
}

// TestRestoreTableWithoutSchema documents a hazard: a snapshot whose table
// was tabled by a side without a schema (a damaged row) makes Restore
// panic on a nil schema instead of returning an error.
func TestRestoreTableWithoutSchema(t *testing.T) {
	defer func() {
		if v := recover(); v != nil {
			t.Fatalf("Restore panics: %v", v)
		}
	}()
	_, err := Restore([]byte(`{"state":"awaiting","schemas":[null,null],"table":{"by":"b","round":1,"terms":[{}]}}`), [2][]byte{})
	if err == nil {
		t.Error("a table without a schema restored without an error")
	}
}
