package app

import (
	"fmt"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

func TestSchemaCache(t *testing.T) {
	c := newSchemaCache(schemasKept)
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
	if s, err := negotiation.RestoreWith(nil, mustOpen(t, raw).Snapshot(), [2][]byte{}); err != nil || s.Party(negotiation.SideA).Schema == a {
		t.Fatalf("a restore without a cache parses afresh: %v", err)
	}
	r := mustOpen(t, raw)
	back, err := negotiation.RestoreWith(c, r.Snapshot(), [2][]byte{})
	if err != nil || string(back.Snapshot()) != string(r.Snapshot()) {
		t.Fatalf("restore with a cache: %v", err)
	}
	again, err := negotiation.RestoreWith(c, r.Snapshot(), [2][]byte{})
	if err != nil || again.Party(negotiation.SideA).Schema != back.Party(negotiation.SideA).Schema {
		t.Fatalf("a room restored again did not take its schema from the cache: %v", err)
	}
}

// TestSchemaCacheBounded: schemas agents make up one after another do not
// grow the cache past its two generations, and the schema in use stays.
func TestSchemaCacheBounded(t *testing.T) {
	const size = 8
	c := newSchemaCache(size)
	kept := []byte(`{"day":{"type":"date","label":"Day"}}`)
	first, err := c.Parse(kept)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 * size {
		if _, err := c.Parse(fmt.Appendf(nil, `{"f%d":{"type":"date","label":"F"}}`, i)); err != nil {
			t.Fatal(err)
		}
		if n := c.c.Len(); n > 2*size {
			t.Fatalf("after %d schemas the cache holds %d, more than 2×%d", i+2, n, size)
		}
		if again, _ := c.Parse(kept); again != first {
			t.Fatalf("after %d schemas the schema in use was parsed again", i+2)
		}
	}
	if n := c.c.Len(); n < size {
		t.Fatalf("the cache holds %d schemas, fewer than a generation (%d)", n, size)
	}
}

func mustOpen(t *testing.T, schema []byte) *negotiation.Room {
	t.Helper()
	r, _, _, err := negotiation.Open(negotiation.OpenRequest{Schema: schema, Subject: []byte(`{"day":"2026-12-24"}`)}, time.Date(2026, 10, 12, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
