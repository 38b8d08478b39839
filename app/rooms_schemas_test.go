package app

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	segjson "github.com/segmentio/encoding/json"

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
	if s, err := negotiation.RestoreWith(nil, nil, mustOpen(t, raw).Snapshot(), [2][]byte{}); err != nil || s.Party(negotiation.SideA).Schema == a {
		t.Fatalf("a restore without a cache parses afresh: %v", err)
	}
	r := mustOpen(t, raw)
	back, err := negotiation.RestoreWith(c, segjson.Unmarshal, r.Snapshot(), [2][]byte{})
	if err != nil || string(back.Snapshot()) != string(r.Snapshot()) {
		t.Fatalf("restore with a cache: %v", err)
	}
	again, err := negotiation.RestoreWith(c, segjson.Unmarshal, r.Snapshot(), [2][]byte{})
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

// TestSnapshotDecodersAgree: the snapshots of rooms in each state decode
// the same with segmentio's decoder, which restores rooms in the service,
// as with encoding/json's.
func TestSnapshotDecodersAgree(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	if _, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err) // open, nobody joined
	}
	rb.openJoined(t, OpenInput{}, "") // joined, nothing on the table
	rb.askB(t, "", 10, "")            // a confirmation pending
	rb.agree(t, "")                   // agreed
	rows, _ := rb.pool.Query(rb.ctx, `SELECT snapshot FROM rooms ORDER BY id`)
	snaps, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil || len(snaps) < 4 {
		t.Fatalf("%d snapshots: %v", len(snaps), err)
	}
	for _, snap := range snaps {
		std, err := negotiation.RestoreWith(nil, nil, snap, [2][]byte{})
		if err != nil {
			t.Fatal(err)
		}
		seg, err := negotiation.RestoreWith(nil, segjson.Unmarshal, snap, [2][]byte{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(std, seg) || !bytes.Equal(seg.Snapshot(), snap) {
			t.Errorf("the decoders differ on %s", snap)
		}
	}
}

// BenchmarkRestoreSnapshot: a room restored from its snapshot with each
// decoder (every move, read, one-tap page and notice restores one).
func BenchmarkRestoreSnapshot(b *testing.B) {
	r, _, _, err := negotiation.Open(negotiation.OpenRequest{Schema: meetingSchema, Subject: meeting(10, "120.00")}, time.Date(2026, 10, 12, 10, 0, 0, 0, time.UTC))
	if err != nil {
		b.Fatal(err)
	}
	snap := r.Snapshot()
	c := newSchemaCache(schemasKept)
	for _, d := range []struct {
		name      string
		unmarshal func([]byte, any) error
	}{{"encoding-json", nil}, {"segmentio", segjson.Unmarshal}} {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := negotiation.RestoreWith(c, d.unmarshal, snap, [2][]byte{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
