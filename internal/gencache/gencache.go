// Package gencache is a bounded in-process cache in two generations: when
// the current generation is full it becomes the previous one and the
// previous one is dropped; an entry found in the previous generation moves
// back to the current. It costs one map write per miss and keeps the
// entries in use, without the bookkeeping of an LRU list.
package gencache

import "sync"

// Cache maps K to V, holding at most 2×size entries. The zero Cache is not
// usable: make one with New. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu        sync.Mutex
	cur, prev map[K]V
	size      int
}

// New returns a cache whose generations hold size entries each.
func New[K comparable, V any](size int) *Cache[K, V] {
	return &Cache[K, V]{size: max(size, 1)}
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
	delete(c.cur, k)
	delete(c.prev, k)
	c.mu.Unlock()
}

// Clear removes everything.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	c.cur, c.prev = nil, nil
	c.mu.Unlock()
}

// Len is how many entries the cache holds (both generations).
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.prev)
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
		c.putLocked(k, v)
	}
	return v, ok
}

func (c *Cache[K, V]) putLocked(k K, v V) {
	if _, ok := c.cur[k]; !ok && (c.cur == nil || len(c.cur) >= c.size) {
		c.prev, c.cur = c.cur, make(map[K]V, min(c.size, 1024))
	}
	c.cur[k] = v
}
