package mcpserver

import (
	"testing"
	"time"
)

func TestLimiterBucket(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(RateLimit{Rate: 2, Burst: 3}, func() time.Time { return now })
	if newLimiter(RateLimit{}, time.Now) != nil {
		t.Fatal("the zero RateLimit limits")
	}
	k, other := keyID("tsk_a"), keyID("tsk_b")
	if empty, _ := l.empty(k); empty {
		t.Fatal("a key never seen is empty")
	}
	for i := range 3 {
		if ok, _ := l.take(k); !ok {
			t.Fatalf("call %d of the burst refused", i)
		}
	}
	ok, wait := l.take(k)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst: %v, wait %s", ok, wait)
	}
	if empty, _ := l.empty(k); !empty {
		t.Fatal("an empty bucket not seen before authentication")
	}
	if ok, _ := l.take(other); !ok {
		t.Fatal("another key was limited")
	}
	now = now.Add(500 * time.Millisecond)
	if ok, _ := l.take(k); !ok {
		t.Fatal("a refilled token refused")
	}
	now = now.Add(time.Hour) // full again, then swept
	l.take(other)
	if _, kept := l.buckets[k]; kept || len(l.buckets) != 1 {
		t.Fatalf("full buckets kept: %d", len(l.buckets))
	}
}
