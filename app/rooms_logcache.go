package app

import (
	"encoding/json"
	"fmt"

	"github.com/taasky/taasky/internal/gencache"
	"github.com/taasky/taasky/negotiation"
)

// loggedEvent is one entry of a room's log, decoded, with the hashes of
// the terms it tabled, each in its canonical form.
type loggedEvent struct {
	negotiation.Event
	Hashes []negotiation.SubjectHash
}

// logCache keeps decoded log entries by their text. A room's log is
// append-only and an entry's text decides what it decodes to, so a room
// read again decodes and hashes only its new entries. Keying by the text
// (not by room and seq) also keeps an entry of a rolled-back move from
// standing in for the one that committed.
type logCache struct {
	c *gencache.Cache[string, *loggedEvent]
}

// logCacheSize is the entries a generation holds (a few hundred bytes each
// as agents write them); logCacheBytes bounds what they hold whatever
// their size: an entry of three options of the largest terms
// (negotiation.MaxTermsBytes) is some 1.5 MB, and 100,000 of them were
// 150 GB.
const (
	logCacheSize  = 50_000
	logCacheBytes = 32 << 20
)

func newLogCache(size int) logCache {
	// The entry's text, and its decoded terms and hashes about as much.
	return logCache{gencache.NewBudget(size, logCacheBytes, func(text string, _ *loggedEvent) int { return 2*len(text) + 256 })}
}

// decode returns row's log decoded, from the cache where it can.
func (c logCache) decode(row *roomRow) ([]*loggedEvent, error) {
	out := make([]*loggedEvent, len(row.log))
	var missing []int
	c.c.Locked(func(tx gencache.Tx[string, *loggedEvent]) {
		for i, text := range row.log {
			if e, ok := tx.Get(text); ok {
				out[i] = e
			} else {
				missing = append(missing, i)
			}
		}
	})
	if len(missing) == 0 {
		return out, nil
	}
	for _, i := range missing {
		e := &loggedEvent{}
		if err := json.Unmarshal([]byte(row.log[i]), &e.Event); err != nil {
			return nil, fmt.Errorf("room %d event %d: %w", row.ID, i+1, err)
		}
		// The log holds the terms as encoding/json wrote the event, which
		// escapes <, >, &, U+2028 and U+2029: their canonical form again
		// (JCS) is the bytes the subject_hash is of.
		for j, t := range e.Terms {
			c, err := negotiation.Canonical(t)
			if err != nil {
				return nil, fmt.Errorf("room %d event %d terms: %w", row.ID, i+1, err)
			}
			e.Terms[j] = c
			e.Hashes = append(e.Hashes, negotiation.HashOf(c))
		}
		out[i] = e
	}
	c.c.Locked(func(tx gencache.Tx[string, *loggedEvent]) {
		for _, i := range missing {
			tx.Put(row.log[i], out[i])
		}
	})
	return out, nil
}

// elided reports whether e is a stub of roomLogLight: an offer or counter
// whose terms the statement left out (the protocol logs none without).
func (e *loggedEvent) elided() bool {
	return e.Kind == negotiation.EventPropose && len(e.Terms) == 0 &&
		(e.Verdict == negotiation.VerdictOffer || e.Verdict == negotiation.VerdictCounter)
}

// events is the log's events, for the protocol's helpers.
func events(log []*loggedEvent) []negotiation.Event {
	out := make([]negotiation.Event, len(log))
	for i, e := range log {
		out[i] = e.Event
	}
	return out
}
