package negotiation

import (
	"fmt"
	"strings"
	"testing"
)

// A 24-field schema and terms using every type, as large as a schema gets.
func bigSchemaAndTerms() ([]byte, []byte) {
	types := []struct{ decl, value string }{
		{`{"type":"string","label":"Note %d"}`, `"Bring the signed contract, two copies"`},
		{`{"type":"int","label":"Count %d"}`, `42`},
		{`{"type":"bool","label":"Flag %d"}`, `true`},
		{`{"type":"enum","label":"Choice %d","values":["office","video","cafe"]}`, `"video"`},
		{`{"type":"timerange","label":"Time %d"}`, `{"start":"2026-12-03T10:00:00+02:00","end":"2026-12-03T10:30:00+02:00"}`},
		{`{"type":"date","label":"Day %d"}`, `"2026-12-24"`},
		{`{"type":"money","label":"Fee %d","currency":"EUR"}`, `{"amount":"1500","currency":"EUR"}`},
		{`{"type":"timerange","label":"Slots %d","repeated":true}`, `[{"start":"2026-12-03T10:00:00Z","end":"2026-12-03T10:30:00Z"},{"start":"2026-12-04T10:00:00Z","end":"2026-12-04T10:30:00Z"}]`},
	}
	var s, t []string
	for i := range MaxFields {
		ty := types[i%len(types)]
		s = append(s, fmt.Sprintf(`"field_%02d":`+ty.decl, i, i))
		t = append(t, fmt.Sprintf(`"field_%02d":%s`, i, ty.value))
	}
	return []byte("{" + strings.Join(s, ",") + "}"), []byte("{" + strings.Join(t, ",") + "}")
}

// BenchmarkValidateAndHash24Fields: the goal is at most 20 µs and a handful
// of allocations on a 2-core CI machine.
func BenchmarkValidateAndHash24Fields(b *testing.B) {
	schemaJSON, termsJSON := bigSchemaAndTerms()
	s, _, err := ParseSchema(schemaJSON)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(termsJSON)))
	for b.Loop() {
		t, err := s.ParseTerms(termsJSON)
		if err != nil {
			b.Fatal(err)
		}
		_ = t.Hash()
	}
}
