package app

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

func TestLogCache(t *testing.T) {
	var log []string
	for i := range 5 {
		ev := negotiation.Event{Kind: negotiation.EventPropose, Side: negotiation.SideA, Verdict: negotiation.VerdictCounter,
			At:    time.Date(2026, 11, 1, 10, i, 0, 0, time.UTC),
			Terms: []json.RawMessage{json.RawMessage(fmt.Sprintf(`{"fee":{"amount":"%d.00","currency":"EUR"}}`, 100+i))}}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, string(b))
	}
	c := newLogCache(2)
	for round := range 3 {
		// Each round: the log as it grows, then all of it; every decode
		// equals a fresh one, whatever the cache kept or dropped.
		for n := 1; n <= len(log); n++ {
			row := &roomRow{ID: 1, log: log[:n], Seq: n}
			got, err := c.decode(row)
			if err != nil {
				t.Fatal(err)
			}
			want, err := row.events()
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !reflect.DeepEqual(got[i].Event, want[i]) {
					t.Fatalf("round %d, entry %d: cached %+v, decoded %+v", round, i, got[i].Event, want[i])
				}
				if h := negotiation.HashOf(want[i].Terms[0]); got[i].Hashes[0] != h {
					t.Fatalf("entry %d: hash %s, want %s", i, got[i].Hashes[0], h)
				}
			}
		}
		if n := c.c.Len(); n > 4 {
			t.Fatalf("the cache holds %d entries, at most two generations of 2", n)
		}
	}
	if _, err := c.decode(&roomRow{ID: 2, log: []string{`{"kind":`}, Seq: 1}); err == nil {
		t.Fatal("a broken entry decoded")
	}
}
