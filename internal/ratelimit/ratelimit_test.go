package ratelimit

import (
	"testing"
	"time"
)

// clock is a time the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newClock() *clock { return &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)} }

func TestBucket(t *testing.T) {
	c := newClock()
	b := New[string](Limit{Rate: 2, Burst: 3}, 100, c.now)
	if New[string](Limit{}, 100, time.Now) != nil {
		t.Fatal("the zero Limit limits")
	}
	if empty, _ := b.Empty("a"); empty {
		t.Fatal("a key never seen is empty")
	}
	if b.Len() != 0 {
		t.Fatal("Empty made a bucket")
	}
	for i := range 3 {
		if ok, _ := b.Take("a"); !ok {
			t.Fatalf("take %d of the burst refused", i)
		}
	}
	ok, wait := b.Take("a")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst: %v, wait %s", ok, wait)
	}
	if empty, wait := b.Empty("a"); !empty || wait != 500*time.Millisecond {
		t.Fatalf("Empty of an empty bucket: %v, %s", empty, wait)
	}
	if ok, _ := b.Take("b"); !ok {
		t.Fatal("another key was limited")
	}
	c.t = c.t.Add(200 * time.Millisecond)
	if ok, wait := b.Take("a"); ok || wait != 300*time.Millisecond {
		t.Fatalf("a part refilled: %v, wait %s", ok, wait)
	}
	c.t = c.t.Add(300 * time.Millisecond)
	if ok, _ := b.Take("a"); !ok {
		t.Fatal("a refilled token refused")
	}
	if ok, _ := b.Take("a"); ok {
		t.Fatal("one token refilled, two spent")
	}
}

func TestIdleBucketsDropped(t *testing.T) {
	c := newClock()
	b := New[string](Limit{Rate: 1, Burst: 2}, 100, c.now)
	b.Take("a")
	b.Take("a")
	c.t = c.t.Add(time.Second)
	b.Take("b")
	b.Take("b")
	c.t = c.t.Add(time.Second) // a full again, b not yet
	b.Take("c")
	if b.Len() != 2 {
		t.Fatalf("%d buckets, want b and c", b.Len())
	}
	if empty, _ := b.Empty("a"); empty {
		t.Fatal("a dropped bucket is empty")
	}
	c.t = c.t.Add(time.Hour)
	b.Take("d")
	if b.Len() != 1 {
		t.Fatalf("%d buckets an hour later, want d alone", b.Len())
	}
}

func TestKeysCapped(t *testing.T) {
	c := newClock()
	b := New[int](Limit{Rate: 1, Burst: 1}, 3, c.now)
	for k := range 3 {
		b.Take(k)
	}
	if ok, _ := b.Take(1); ok { // 1 is now the newest; 0 the oldest
		t.Fatal("an empty bucket gave a token")
	}
	b.Take(9)
	if b.Len() != 3 {
		t.Fatalf("%d keys, cap 3", b.Len())
	}
	if empty, _ := b.Empty(0); empty {
		t.Fatal("the key idle longest was kept past the cap")
	}
	for _, k := range []int{1, 2, 9} {
		if empty, _ := b.Empty(k); !empty {
			t.Fatalf("key %d was forgotten, not the one idle longest", k)
		}
	}
	for k := range 10_000 {
		b.Take(100 + k)
	}
	if b.Len() != 3 {
		t.Fatalf("%d keys after a flood of new ones, cap 3", b.Len())
	}
}

func TestNilAllows(t *testing.T) {
	var b *Buckets[string]
	if ok, _ := b.Take("a"); !ok {
		t.Fatal("no limit refused")
	}
	if empty, _ := b.Empty("a"); empty || b.Len() != 0 || b.Limit() != (Limit{}) {
		t.Fatal("no limit has buckets")
	}
}

func TestRetryAfter(t *testing.T) {
	for wait, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1001 * time.Millisecond: 2, 10 * time.Second: 10} {
		if got := RetryAfter(wait); got != want {
			t.Errorf("RetryAfter(%s) = %d, want %d", wait, got, want)
		}
	}
}

// TestCharge: a call found to cost more than one spends more tokens after
// the fact; the bucket goes below zero, down to a minute of the rate, and
// the key's next call waits until it refills. A key with no bucket is not
// charged (nor given one).
func TestCharge(t *testing.T) {
	c := newClock()
	b := New[string](Limit{Rate: 2, Burst: 5}, 100, c.now)
	b.Charge("nobody", 10)
	if b.Len() != 0 {
		t.Fatal("Charge made a bucket")
	}
	if ok, _ := b.Take("a"); !ok {
		t.Fatal("the first call refused")
	}
	b.Charge("a", 6) // 4 - 6 = -2
	if ok, wait := b.Take("a"); ok || wait != 1500*time.Millisecond {
		t.Fatalf("after a charge of 6 with 4 left: %v, wait %s, want refused for 1.5 s", ok, wait)
	}
	c.t = c.t.Add(1500 * time.Millisecond)
	if ok, _ := b.Take("a"); !ok {
		t.Fatal("refused once the charge was paid")
	}
	b.Charge("a", 1e6)
	if _, wait := b.Take("a"); wait != 60*time.Second+500*time.Millisecond {
		t.Fatalf("a huge charge: wait %s, want a minute of the rate (and the token)", wait)
	}
	b.Charge("a", 0)
	b.Charge("a", -3)
	if _, wait := b.Take("a"); wait != 60*time.Second+500*time.Millisecond {
		t.Fatalf("a charge of nothing changed the bucket: wait %s", wait)
	}
}
