package negotiation

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// sameAsTree checks ParseTerms against the tree it falls back on: the same
// error word for word, or the same values, canonical form and hash; and
// valid terms never need the tree.
func sameAsTree(t *testing.T, s *Schema, data []byte) {
	t.Helper()
	if len(data) > MaxTermsBytes {
		return
	}
	got, err := s.ParseTerms(data)
	r := pooledReader()
	defer r.release()
	want, wantErr := s.parseTermsTree(r, data)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%q: error %v, the tree gives %v", data, err, wantErr)
	}
	if wantErr != nil {
		return
	}
	if !bytes.Equal(got.Canonical(), want.Canonical()) || got.Hash() != want.Hash() || !reflect.DeepEqual(got.values, want.values) {
		t.Fatalf("%q: read as %s, the tree reads %s", data, got.Canonical(), want.Canonical())
	}
	r.reset(data)
	if _, ok := s.readTerms(r); !ok {
		t.Fatalf("%q: valid terms, but readTerms gave up on them", data)
	}
}

// TestReadTermsLikeTheTree: hand-picked terms at the edges of readTerms
// (whitespace, escapes, order, duplicates, nesting) read as the tree does.
func TestReadTermsLikeTheTree(t *testing.T) {
	s, _, err := ParseSchema(fuzzSchema)
	if err != nil {
		t.Fatal(err)
	}
	slot := `{"start":"2026-12-03T10:00:00Z","end":"2026-12-03T11:00:00Z"}`
	for _, in := range []string{
		`{}`, ` { } `, `{"qty":1}`, " {\t\"qty\" :\n1 } ", `{"\u0071ty":1}`, `{"qty":1,"qty":1}`, `{"qty":1,"\u0071ty":2}`,
		`{"qty":1,}`, `{"qty":1 "ok":true}`, `{"qty":1}x`, `{"qty":1}}`, `{"qty":null}`, `{"qty":[1]}`, `{"qty":{"a":1}}`,
		`{"place":"video","qty":2,"ok":false,"topic":"\u00e9\n"}`, `{"nope":1,"qty":1,"qty":2}`, `{"nope":1,"qty":[}`,
		`{"slots":[]}`, `{"slots":[` + slot + `]}`, `{"slots":[` + slot + `,` + slot + `]}`, `{"slots":[` + slot + `,]}`,
		`{"slots":` + slot + `}`, `{"slots":[{"end":"2026-12-03T11:00:00Z","start":"2026-12-03T10:00:00Z"}]}`,
		`{"slots":[{"start":"2026-12-03T10:00:00Z","start":"2026-12-03T10:00:00Z"}]}`,
		`{"slots":[{"start":"2026-12-03T10:00:00Z","end":"2026-12-03T11:00:00Z","x":1}]}`,
		`{"slots":[{"start":"2026-12-03T10:00:00Z"}]}`, `{"slots":[{}]}`, `{"slots":[{"start":{},"end":[]}]}`,
		`{"price":{"amount":"1.50","currency":"EUR"}}`, `{"price":{"currency":"JPY","amount":"1500"}}`,
		`{"price":{"amount":"1.50","amount":"1.50"}}`, `{"price":{"amount":1.5,"currency":"EUR"}}`, `{"price":{"amount":"1.50"}}`,
		`{"price":{"amount":"1","currency":"EUR","amount":"1"}}`, `{"price":{"amount":"1","currency":"EUR",}}`,
		`{"price":{"currency":"EUR","currency":"EUR"}}`, `{"price":{"amount":"1",}}`, `{"price":{"amount":"1" "currency":"EUR"}}`,
		`{"price":{"amount":"1","currency":"EUR"`, `{"price":{"amount":"1","currency":"EUR"]}`, `{"price":{"amount":"1","currency":"eur"}}`,
		`{"day":"2026-02-29"}`, `{"day":"2028-02-29"}`, `{"ok":true,"ok":true}`, `[]`, `null`, `"x"`, ``, `{`, `{"qty"`,
	} {
		sameAsTree(t, s, []byte(in))
	}
	// More than MaxRepeated values, and exactly as many.
	many := func(n int) string {
		b := []byte(`{"slots":[`)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, slot...)
		}
		return string(b) + "]}"
	}
	sameAsTree(t, s, []byte(many(MaxRepeated)))
	sameAsTree(t, s, []byte(many(MaxRepeated+1)))
	schema, terms := bigSchemaAndTerms()
	big, _, err := ParseSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	sameAsTree(t, big, terms)
}

// TestReadTermsSingleEdits: every terms one edit away from valid ones (a
// byte deleted, inserted or replaced, from bytes that matter to JSON and to
// the values) read as the tree reads them.
func TestReadTermsSingleEdits(t *testing.T) {
	s, _, err := ParseSchema(fuzzSchema)
	if err != nil {
		t.Fatal(err)
	}
	valid := []string{
		`{"topic":"hi","qty":-7,"ok":true,"day":"2024-02-29","place":"video",` +
			`"slots":[{"start":"2026-12-03T10:00:00.5+02:00","end":"2026-12-03T11:00:00Z"},{"end":"2026-12-04T11:00:00Z","start":"2026-12-04T10:00:00Z"}],` +
			`"price":{"amount":"0.50","currency":"EUR"}}`,
		` { "price" : { "currency" : "JPY" , "amount" : "1500" } , "ok" : false } `,
	}
	alphabet := []byte("{}[]:,\"\\ \t0159.eE+-ZTtrunlfasx\x00\xc3")
	edits := 0
	for _, v := range valid {
		sameAsTree(t, s, []byte(v))
		for i := 0; i <= len(v); i++ {
			if i < len(v) {
				sameAsTree(t, s, []byte(v[:i]+v[i+1:]))
				edits++
			}
			for _, c := range alphabet {
				sameAsTree(t, s, []byte(v[:i]+string(c)+v[i:]))
				if i < len(v) {
					sameAsTree(t, s, []byte(v[:i]+string(c)+v[i+1:]))
				}
				edits += 2
			}
		}
	}
	t.Logf("%d edits", edits)
}
