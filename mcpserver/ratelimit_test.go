package mcpserver

import (
	"testing"
	"time"
)

// TestLimiterBucket: the buckets are per agent, whichever of its keys is
// used, and Empty (before the key is looked up) never makes one, nor knows
// a key that never authenticated. The bucket itself is tested in
// internal/ratelimit.
func TestLimiterBucket(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(RateLimit{Rate: 2, Burst: 3}, RateLimit{}, nil, func() time.Time { return now })
	if newLimiter(RateLimit{}, RateLimit{}, nil, time.Now) != nil {
		t.Fatal("the zero RateLimit limits")
	}
	k, k2, other := keyID("tsk_a"), keyID("tsk_a2"), keyID("tsk_b")
	if empty, _ := l.Empty(k); empty || l.buckets.Len() != 0 {
		t.Fatal("a key never seen is empty, or got a bucket before authenticating")
	}
	for i := range 3 {
		if ok, _ := l.Take(k, 1); !ok {
			t.Fatalf("call %d of the burst refused", i)
		}
	}
	ok, wait := l.Take(k2, 1)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst, with the agent's other key: %v, wait %s", ok, wait)
	}
	if empty, _ := l.Empty(k); !empty {
		t.Fatal("an empty bucket not seen before authentication")
	}
	if empty, _ := l.Empty(k2); !empty {
		t.Fatal("the agent's other key: its empty bucket not seen before authentication")
	}
	if ok, _ := l.Take(other, 2); !ok {
		t.Fatal("another key was limited")
	}
	now = now.Add(500 * time.Millisecond)
	if ok, _ := l.Take(k, 1); !ok {
		t.Fatal("a refilled token refused")
	}
	now = now.Add(time.Hour) // full again, then dropped
	l.Take(other, 2)
	if l.buckets.Len() != 1 {
		t.Fatalf("full buckets kept: %d", l.buckets.Len())
	}
}
