// Package ratelimit is a token bucket per key (an agent, a client
// address), kept in one process's memory, with bounded memory: buckets that
// have refilled are dropped, and past a cap on keys the one idle longest
// goes. It knows nothing of HTTP; callers say what a refusal looks like.
package ratelimit

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Limit is Rate tokens a second sustained, Burst at once. The zero Limit
// (Rate 0) is no limit.
type Limit struct {
	Rate  float64
	Burst int
}

// Buckets holds one bucket per key. A nil *Buckets (from New with no
// limit) allows everything.
type Buckets[K comparable] struct {
	limit Limit
	max   int
	now   func() time.Time
	mu    sync.Mutex
	byKey map[K]*bucket[K]
	// newest and oldest are the ends of a list of buckets by last Take, so
	// that idle buckets are found at one end without scanning them all.
	newest, oldest *bucket[K]
}

type bucket[K comparable] struct {
	key          K
	tokens       float64
	at           time.Time // tokens is as of at
	newer, older *bucket[K]
}

// New returns the buckets of l, at most maxKeys of them (at least 1), on
// the clock now; nil when l has no rate.
func New[K comparable](l Limit, maxKeys int, now func() time.Time) *Buckets[K] {
	if l.Rate <= 0 {
		return nil
	}
	if l.Burst < 1 {
		l.Burst = 1
	}
	return &Buckets[K]{limit: l, max: max(1, maxKeys), now: now, byKey: map[K]*bucket[K]{}}
}

// Limit is the limit b applies (the zero Limit for nil).
func (b *Buckets[K]) Limit() Limit {
	if b == nil {
		return Limit{}
	}
	return b.limit
}

// Take spends a token of k's bucket, making it (full) if k has none. When
// the bucket is empty it spends nothing and says how long until it holds a
// token.
func (b *Buckets[K]) Take(k K) (ok bool, wait time.Duration) {
	if b == nil {
		return true, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.dropIdle(now)
	bk := b.byKey[k]
	if bk == nil {
		if len(b.byKey) >= b.max {
			// The bucket idle longest is the nearest to full: forgetting
			// it gives that key at most a burst more.
			b.remove(b.oldest)
		}
		bk = &bucket[K]{key: k, tokens: float64(b.limit.Burst), at: now}
		b.byKey[k] = bk
	} else {
		b.unlink(bk)
	}
	b.pushNewest(bk)
	b.refill(bk, now)
	if bk.tokens < 1 {
		return false, b.wait(bk)
	}
	bk.tokens--
	return true, 0
}

// Charge spends n more tokens of k's bucket after the fact, for a call
// that turned out to cost more than one: the bucket may go below zero,
// down to a minute of the rate, and k's next calls wait until it refills.
// A key without a bucket (never limited, or forgotten since) is not charged.
func (b *Buckets[K]) Charge(k K, n float64) {
	if b == nil || n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.byKey[k]
	if bk == nil {
		return
	}
	b.refill(bk, b.now())
	bk.tokens = math.Max(bk.tokens-n, -60*b.limit.Rate)
}

// Empty reports, without spending or making a bucket, whether k's bucket
// exists and is empty, and for how long it stays so: a flood can then be
// refused before anything costly (a key lookup) is done for it.
func (b *Buckets[K]) Empty(k K) (bool, time.Duration) {
	if b == nil {
		return false, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.byKey[k]
	if bk == nil {
		return false, 0
	}
	b.refill(bk, b.now())
	if bk.tokens >= 1 {
		return false, 0
	}
	return true, b.wait(bk)
}

// Len is how many keys have a bucket.
func (b *Buckets[K]) Len() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.byKey)
}

// RetryAfter is wait in whole seconds, rounded up, at least 1: the value of
// a Retry-After header.
func RetryAfter(wait time.Duration) int {
	return max(1, int(math.Ceil(wait.Seconds())))
}

// Exceeded is a refusal by a limit: the caller's answer says Wait (as
// RetryAfter's seconds) in its own words.
type Exceeded struct {
	// What was limited, for logs: "metadata document fetches".
	What string
	Wait time.Duration
}

func (e *Exceeded) Error() string {
	return fmt.Sprintf("too many %s; retry after %d s", e.What, RetryAfter(e.Wait))
}

// refill brings bk up to now; the caller holds b.mu.
func (b *Buckets[K]) refill(bk *bucket[K], now time.Time) {
	if d := now.Sub(bk.at); d > 0 {
		bk.tokens = math.Min(float64(b.limit.Burst), bk.tokens+d.Seconds()*b.limit.Rate)
		bk.at = now
	}
}

// wait is how long until bk holds a whole token; the caller holds b.mu.
func (b *Buckets[K]) wait(bk *bucket[K]) time.Duration {
	return time.Duration((1 - bk.tokens) / b.limit.Rate * float64(time.Second))
}

// dropIdle forgets, from the oldest on, the buckets that are full again:
// they hold nothing a new bucket would not. It stops at the first that is
// not, so what stays was used within Burst/Rate; each bucket is dropped
// once, so a Take pays for it only once. The caller holds b.mu.
func (b *Buckets[K]) dropIdle(now time.Time) {
	for b.oldest != nil {
		b.refill(b.oldest, now)
		if b.oldest.tokens < float64(b.limit.Burst) {
			return
		}
		b.remove(b.oldest)
	}
}

func (b *Buckets[K]) remove(bk *bucket[K]) {
	b.unlink(bk)
	delete(b.byKey, bk.key)
}

func (b *Buckets[K]) unlink(bk *bucket[K]) {
	if bk.newer != nil {
		bk.newer.older = bk.older
	} else {
		b.newest = bk.older
	}
	if bk.older != nil {
		bk.older.newer = bk.newer
	} else {
		b.oldest = bk.newer
	}
	bk.newer, bk.older = nil, nil
}

func (b *Buckets[K]) pushNewest(bk *bucket[K]) {
	bk.older = b.newest
	if b.newest != nil {
		b.newest.newer = bk
	} else {
		b.oldest = bk
	}
	b.newest = bk
}
