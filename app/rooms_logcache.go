package app

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/taasky/taasky/negotiation"
)

// loggedEvent is one entry of a room's log, decoded, with the hashes of
// the terms it tabled.
type loggedEvent struct {
	negotiation.Event
	Hashes []negotiation.SubjectHash
}

// logCache keeps decoded log entries by their text. A room's log is
// append-only and an entry's text decides what it decodes to, so a room
// read again decodes and hashes only its new entries. Keying by the text
// (not by room and seq) also keeps an entry of a rolled-back move from
// standing in for the one that committed. Two generations bound it: when
// the current one is full it becomes the previous, and the previous is
// dropped; an entry found in the previous moves back to the current.
type logCache struct {
	mu        sync.Mutex
	cur, prev map[string]*loggedEvent
	size      int // entries a generation holds; 0: logCacheSize
}

// logCacheSize is the entries a generation holds (a few hundred bytes each).
const logCacheSize = 50_000

// decode returns row's log decoded, from the cache where it can.
func (c *logCache) decode(row *roomRow) ([]*loggedEvent, error) {
	out := make([]*loggedEvent, len(row.log))
	var missing []int
	c.mu.Lock()
	for i, text := range row.log {
		if e := c.getLocked(text); e != nil {
			out[i] = e
		} else {
			missing = append(missing, i)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	for _, i := range missing {
		e := &loggedEvent{}
		if err := json.Unmarshal([]byte(row.log[i]), &e.Event); err != nil {
			return nil, fmt.Errorf("room %d event %d: %w", row.ID, i+1, err)
		}
		for _, t := range e.Terms {
			e.Hashes = append(e.Hashes, negotiation.HashOf(t))
		}
		out[i] = e
	}
	c.mu.Lock()
	for _, i := range missing {
		c.putLocked(row.log[i], out[i])
	}
	c.mu.Unlock()
	return out, nil
}

func (c *logCache) getLocked(text string) *loggedEvent {
	if e, ok := c.cur[text]; ok {
		return e
	}
	e, ok := c.prev[text]
	if ok {
		c.putLocked(text, e)
	}
	return e
}

func (c *logCache) putLocked(text string, e *loggedEvent) {
	size := c.size
	if size == 0 {
		size = logCacheSize
	}
	if c.cur == nil || len(c.cur) >= size {
		c.prev, c.cur = c.cur, make(map[string]*loggedEvent, 1024)
	}
	c.cur[text] = e
}

// events is the log's events, for the protocol's helpers.
func events(log []*loggedEvent) []negotiation.Event {
	out := make([]negotiation.Event, len(log))
	for i, e := range log {
		out[i] = e.Event
	}
	return out
}
