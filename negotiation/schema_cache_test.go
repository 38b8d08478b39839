package negotiation

import (
	"testing"
	"time"
)

func TestSchemaCache(t *testing.T) {
	var c SchemaCache
	raw := []byte(`{"day":{"type":"date","label":"Day"}}`)
	a, err := c.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Parse(raw)
	if a != b {
		t.Fatal("the second parse did not come from the cache")
	}
	if _, err := c.Parse([]byte(`{}`)); err == nil {
		t.Fatal("an invalid schema was accepted")
	}
	var none *SchemaCache
	if s, err := none.Parse(raw); err != nil || s == a {
		t.Fatalf("a nil cache parses afresh: %v", err)
	}
	r, _, _, err := Open(OpenRequest{Schema: raw, Subject: []byte(`{"day":"2026-12-24"}`)}, time.Date(2026, 10, 12, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	back, err := RestoreWith(&c, r.Snapshot(), [2][]byte{})
	if err != nil || string(back.Snapshot()) != string(r.Snapshot()) {
		t.Fatalf("restore with a cache: %v", err)
	}
}
