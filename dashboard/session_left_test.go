package dashboard

import (
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// TestStreamEndsWithTheSessionOnTheDatabasesClock: how long a live page's
// stream lets a session go on is its end less the database's moment of
// its read, not less this process's clock: with the database's clock 30 s
// behind this node's, a session 10 s from its end has 10 s left, not
// none (the stream ended at once, saying the person was signed out), and
// with it 30 s ahead, 10 s, not 40 s past its end.
func TestStreamEndsWithTheSessionOnTheDatabasesClock(t *testing.T) {
	t.Parallel()
	for _, off := range []time.Duration{-30 * time.Second, 30 * time.Second} {
		db := time.Now().Add(off)
		s := &liveSession{SignedIn: app.SignedIn{Session: app.Session{ExpiresAt: db.Add(10 * time.Second)}, At: db}, readAt: time.Now()}
		if left := s.left(); left > 10*time.Second || left < 9*time.Second {
			t.Errorf("the database's clock %s off this node's: a session 10 s from its end has %s left", off, left)
		}
	}
}
