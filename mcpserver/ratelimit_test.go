package mcpserver

import (
	"testing"
	"time"
)

// TestLimiterBucket: the buckets are per agent key, and Empty (before the
// key is looked up) never makes one. The bucket itself is tested in
// internal/ratelimit.
func TestLimiterBucket(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(RateLimit{Rate: 2, Burst: 3}, func() time.Time { return now })
	if newLimiter(RateLimit{}, time.Now) != nil {
		t.Fatal("the zero RateLimit limits")
	}
	k, other := keyID("tsk_a"), keyID("tsk_b")
	if empty, _ := l.Empty(k); empty || l.Len() != 0 {
		t.Fatal("a key never seen is empty, or got a bucket before authenticating")
	}
	for i := range 3 {
		if ok, _ := l.Take(k); !ok {
			t.Fatalf("call %d of the burst refused", i)
		}
	}
	ok, wait := l.Take(k)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst: %v, wait %s", ok, wait)
	}
	if empty, _ := l.Empty(k); !empty {
		t.Fatal("an empty bucket not seen before authentication")
	}
	if ok, _ := l.Take(other); !ok {
		t.Fatal("another key was limited")
	}
	now = now.Add(500 * time.Millisecond)
	if ok, _ := l.Take(k); !ok {
		t.Fatal("a refilled token refused")
	}
	now = now.Add(time.Hour) // full again, then dropped
	l.Take(other)
	if l.Len() != 1 {
		t.Fatalf("full buckets kept: %d", l.Len())
	}
}
