// Package gencache is a bounded in-process cache in two generations: when
// the current generation is full it becomes the previous one and the
// previous one is dropped; an entry found in the previous generation moves
// back to the current. It costs one map write per miss and keeps the
// entries in use, without the bookkeeping of an LRU list. A generation is
// full at a number of entries, and, for a cache whose entries can be large
// (NewBudget), at what its entries cost together.
package gencache

import "sync"

// Cache maps K to V, holding at most 2×size entries, and with a budget
// entries costing at most 2×budget together. The zero Cache is not usable:
// make one with New or NewBudget. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu        sync.Mutex
	cur, prev map[K]V
	size      int
	// budget is what a generation's entries may cost together (0: no
	// budget), cost what one costs; curCost and prevCost are what each
	// generation's cost.
	budget            int
	cost              func(K, V) int
	curCost, prevCost int
}

// New returns a cache whose generations hold size entries each.
func New[K comparable, V any](size int) *Cache[K, V] {
	return &Cache[K, V]{size: max(size, 1)}
}

// NewBudget returns a cache whose generations hold size entries each, and
// entries costing at most budget together, cost being what an entry costs
// (its bytes, roughly): a number of entries alone bounds nothing when an
// entry can be a thousand times another. An entry costing more than budget
// is not kept.
func NewBudget[K comparable, V any](size, budget int, cost func(K, V) int) *Cache[K, V] {
	return &Cache[K, V]{size: max(size, 1), budget: max(budget, 1), cost: cost}
}

// Get returns k's value and whether it was there.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.getLocked(k)
}

// Put sets k's value.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	c.putLocked(k, v)
	c.mu.Unlock()
}

// Delete removes k.
func (c *Cache[K, V]) Delete(k K) {
	c.mu.Lock()
	c.deleteLocked(k)
	c.mu.Unlock()
}

// Clear removes everything.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	c.cur, c.prev = nil, nil
	c.curCost, c.prevCost = 0, 0
	c.mu.Unlock()
}

// Len is how many entries the cache holds (both generations).
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.prev)
}

// Cost is what the entries the cache holds cost together (both
// generations; 0 for a cache made with New).
func (c *Cache[K, V]) Cost() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.curCost + c.prevCost
}

// Locked runs f with the cache locked, for a caller that gets or puts many
// entries at once (through the Tx it is given).
func (c *Cache[K, V]) Locked(f func(Tx[K, V])) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(Tx[K, V]{c})
}

// Tx is the cache while Locked holds it.
type Tx[K comparable, V any] struct{ c *Cache[K, V] }

// Get is Cache.Get under the lock already held.
func (t Tx[K, V]) Get(k K) (V, bool) { return t.c.getLocked(k) }

// Put is Cache.Put under the lock already held.
func (t Tx[K, V]) Put(k K, v V) { t.c.putLocked(k, v) }

func (c *Cache[K, V]) getLocked(k K) (V, bool) {
	if v, ok := c.cur[k]; ok {
		return v, true
	}
	v, ok := c.prev[k]
	if ok {
		delete(c.prev, k)
		c.prevCost -= c.costOf(k, v)
		c.putLocked(k, v)
	}
	return v, ok
}

func (c *Cache[K, V]) putLocked(k K, v V) {
	cost := c.costOf(k, v)
	if c.budget > 0 && cost > c.budget {
		c.deleteLocked(k) // what k held before is not k's value now
		return
	}
	old, replaced := c.cur[k]
	if replaced {
		delete(c.cur, k)
		c.curCost -= c.costOf(k, old)
	}
	// A value put again counts against the budget as a new one (a larger
	// value in place of a smaller one would pass it unseen), but not
	// against the entries: it adds none.
	if c.cur == nil || !replaced && len(c.cur) >= c.size || c.budget > 0 && c.curCost+cost > c.budget {
		c.prev, c.cur = c.cur, make(map[K]V, min(c.size, 1024))
		c.prevCost, c.curCost = c.curCost, 0
	}
	c.cur[k] = v
	c.curCost += cost
}

func (c *Cache[K, V]) deleteLocked(k K) {
	if v, ok := c.cur[k]; ok {
		delete(c.cur, k)
		c.curCost -= c.costOf(k, v)
	}
	if v, ok := c.prev[k]; ok {
		delete(c.prev, k)
		c.prevCost -= c.costOf(k, v)
	}
}

// costOf is what k's entry v costs (0 without a budget).
func (c *Cache[K, V]) costOf(k K, v V) int {
	if c.cost == nil {
		return 0
	}
	return c.cost(k, v)
}
