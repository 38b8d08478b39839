// Package refusals counts the requests Taasky turns away before they reach
// its work (a bad credential, a rate limit, a refused OAuth request) and
// says so in the log sparingly. Anyone can send such requests: a line
// each would let them write the operators' logs at the rate they send,
// and bury what else is there. So every refusal is counted
// (taasky_requests_refused_total{route,reason}) and logged at most once
// per Every for each route, reason and key (an agent for a rate limit,
// "" for an anonymous caller), with the refusals since that key's last
// line.
package refusals

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Every spaces the lines of one route, reason and key.
const Every = 10 * time.Second

// keptKeys is how many keys are remembered before those whose window
// ended are forgotten, as a new key comes. Keys still within their window
// are kept past it: they are routes and reasons by an agent, account or
// OAuth client that authenticated (or ""), so there are no more of them
// than of those.
const keptKeys = 10000

// Refusals counts and logs refused requests; a nil *Refusals does nothing.
type Refusals struct {
	total *prometheus.CounterVec
	log   *slog.Logger
	now   func() time.Time
	mu    sync.Mutex
	seen  map[key]*window
}

type key struct{ route, reason, who string }

// window is one key's refusals since its last line, logged at at.
type window struct {
	at time.Time
	n  int64
}

// New counts into a counter named taasky_requests_refused_total, to be
// registered (Collector), and logs to log (nil: no lines).
func New(log *slog.Logger) *Refusals {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Refusals{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "taasky_requests_refused_total",
			Help: "Requests refused before they reached Taasky's work, by route (mcp, oauth_token, oauth_revoke, oauth_authorize, oauth_register) and reason."},
			[]string{"route", "reason"}),
		log: log, now: time.Now, seen: map[key]*window{},
	}
}

// Collector is the counter, for a registry.
func (r *Refusals) Collector() prometheus.Collector { return r.total }

// Known makes the series of route's reasons exist at 0.
func (r *Refusals) Known(route string, reasons ...string) {
	if r == nil {
		return
	}
	for _, reason := range reasons {
		r.total.WithLabelValues(route, reason)
	}
}

// Count counts a refusal that needs no line: one the caller is told of
// and that is no one's flood, or a failure logged where it is seen.
func (r *Refusals) Count(route, reason string) {
	if r != nil {
		r.total.WithLabelValues(route, reason).Inc()
	}
}

// Refused counts a refusal of route for reason, and logs msg at level
// with attrs and "refused" (the refusals of route, reason and who since
// the last line, this one included) unless that key had a line within
// Every. attrs must say nothing a caller sent: no token, key or value.
func (r *Refusals) Refused(route, reason, who string, level slog.Level, msg string, attrs ...any) {
	if r == nil {
		return
	}
	r.total.WithLabelValues(route, reason).Inc()
	now := r.now()
	k := key{route, reason, who}
	r.mu.Lock()
	w := r.seen[k]
	if w != nil && now.Sub(w.at) < Every {
		w.n++
		r.mu.Unlock()
		return
	}
	n := int64(1)
	if w != nil {
		n += w.n
	}
	if w == nil && len(r.seen) >= keptKeys {
		for k, old := range r.seen {
			if now.Sub(old.at) >= Every {
				delete(r.seen, k)
			}
		}
	}
	r.seen[k] = &window{at: now}
	r.mu.Unlock()
	r.log.Log(context.Background(), level, msg, append(attrs, "reason", reason, "refused", n)...)
}
