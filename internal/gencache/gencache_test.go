package gencache

import (
	"sync"
	"testing"
)

func TestGenerations(t *testing.T) {
	c := New[int, string](2)
	c.Put(1, "a")
	c.Put(2, "b")
	c.Put(3, "c") // 1 and 2 become the previous generation
	if v, ok := c.Get(1); !ok || v != "a" {
		t.Fatalf("Get(1) = %q, %v; want a from the previous generation", v, ok)
	}
	// 1 moved back to the current generation (with 3): the next new entry
	// drops 2's generation.
	c.Put(4, "d")
	if _, ok := c.Get(2); ok {
		t.Fatal("2 survived two generations unused")
	}
	for _, k := range []int{1, 3, 4} {
		if _, ok := c.Get(k); !ok {
			t.Fatalf("%d was dropped while in use", k)
		}
	}
	if n := c.Len(); n > 4 {
		t.Fatalf("Len = %d, more than two generations of 2", n)
	}
	c.Put(4, "e") // replacing an entry never starts a generation
	if v, _ := c.Get(4); v != "e" {
		t.Fatalf("Get(4) = %q after replacing it", v)
	}
	c.Delete(4)
	if _, ok := c.Get(4); ok {
		t.Fatal("4 is there after Delete")
	}
	c.Clear()
	if c.Len() != 0 {
		t.Fatal("entries are there after Clear")
	}
	c.Locked(func(tx Tx[int, string]) {
		tx.Put(5, "f")
		if v, ok := tx.Get(5); !ok || v != "f" {
			t.Fatalf("Tx.Get(5) = %q, %v", v, ok)
		}
	})
}

func TestConcurrent(t *testing.T) {
	c := New[int, int](64)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10_000 {
				k := (g*7 + i) % 300
				if v, ok := c.Get(k); ok && v != k*2 {
					t.Errorf("Get(%d) = %d", k, v)
					return
				}
				c.Put(k, k*2)
			}
		})
	}
	wg.Wait()
	if n := c.Len(); n > 128 {
		t.Fatalf("Len = %d, more than two generations of 64", n)
	}
}

func TestBudget(t *testing.T) {
	c := NewBudget(100, 10, func(_ int, v string) int { return len(v) })
	c.Put(1, "aaaa")
	c.Put(2, "bbbb")
	c.Put(3, "cccc") // 1 and 2 (8) and 4 more pass 10: a new generation
	if c.Cost() != 12 || c.Len() != 3 {
		t.Fatalf("Cost, Len = %d, %d; want 12, 3", c.Cost(), c.Len())
	}
	c.Put(4, "dddddd") // 3 (4) and 6 more make 10: the same generation
	c.Put(5, "e")      // past 10 again: 1 and 2 are dropped
	if _, ok := c.Get(1); ok {
		t.Fatal("1 survived two generations past the budget")
	}
	if got := c.Cost(); got > 20 {
		t.Fatalf("Cost = %d, more than two generations of 10", got)
	}
	c.Put(6, "ffffffffffff") // costs more than a generation: not kept
	if _, ok := c.Get(6); ok {
		t.Fatal("an entry past the budget was kept")
	}
	c.Put(5, "eee") // replacing an entry counts its new cost
	c.Delete(4)
	if got := c.Cost(); got != 3+4 {
		t.Fatalf("Cost = %d after replacing 5 and deleting 4; want 7 (3 and 5)", got)
	}
	c.Clear()
	if c.Cost() != 0 {
		t.Fatal("a cost is left after Clear")
	}
}

// TestBudgetReplaced: an entry put again with a larger value (a room's
// kept view, replaced at each read after a move) counts against the
// generation's budget like a new one: replacing every entry of a
// generation with one near the budget held a generation's entries times
// the budget.
func TestBudgetReplaced(t *testing.T) {
	c := NewBudget(100, 10, func(_ int, v string) int { return len(v) })
	for k := range 10 {
		c.Put(k, "a")
	}
	for k := range 10 {
		c.Put(k, "aaaaaaaaa")
	}
	if got := c.Cost(); got > 20 {
		t.Fatalf("Cost = %d after ten entries were replaced with larger ones, more than two generations of 10", got)
	}
	for k := range 10 { // what is kept of k is its last value
		if v, ok := c.Get(k); ok && v != "aaaaaaaaa" {
			t.Fatalf("Get(%d) = %q, an earlier value", k, v)
		}
	}
}
