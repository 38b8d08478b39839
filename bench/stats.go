package bench

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Latencies collects durations by name, safe for concurrent use.
type Latencies struct {
	mu sync.Mutex
	by map[string][]time.Duration
}

// Add records one duration under name.
func (l *Latencies) Add(name string, d time.Duration) {
	l.mu.Lock()
	if l.by == nil {
		l.by = map[string][]time.Duration{}
	}
	l.by[name] = append(l.by[name], d)
	l.mu.Unlock()
}

// Merge adds every duration o holds.
func (l *Latencies) Merge(o *Latencies) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for name, ds := range o.by {
		for _, d := range ds {
			l.Add(name, d)
		}
	}
}

// Summary is a distribution's count and percentiles.
type Summary struct {
	N             int
	P50, P95, P99 time.Duration
	Max           time.Duration
}

func (s Summary) String() string {
	return fmt.Sprintf("n=%-6d p50=%-9s p95=%-9s p99=%s", s.N, round(s.P50), round(s.P95), round(s.P99))
}

func round(d time.Duration) time.Duration {
	if d > time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// Summaries returns every name's summary, sorted by name.
func (l *Latencies) Summaries() ([]string, map[string]Summary) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]Summary{}
	var names []string
	for name, ds := range l.by {
		names = append(names, name)
		out[name] = summarize(ds)
	}
	slices.Sort(names)
	return names, out
}

// Get returns one name's summary.
func (l *Latencies) Get(name string) Summary {
	l.mu.Lock()
	defer l.mu.Unlock()
	return summarize(l.by[name])
}

func summarize(ds []time.Duration) Summary {
	if len(ds) == 0 {
		return Summary{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return Summary{N: len(s), P50: at(0.50), P95: at(0.95), P99: at(0.99), Max: s[len(s)-1]}
}
