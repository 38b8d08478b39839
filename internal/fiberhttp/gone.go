package fiberhttp

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// ClientGone watches the connection of c's request while its handler
// waits, as net/http's server does for a request's context: gone closes
// when the client closes the connection (or it breaks). fasthttp notices
// only when it writes the answer, so that a handler waiting for something
// (a read's wait_seconds) waited its whole time for a client that had
// cancelled its call, and counted against the waits a client may have.
//
// stop ends the watch; the handler calls it (once or more) before it
// returns, and only it reads the connection meanwhile. It costs a goroutine
// blocked in a read for as long as the handler waits: use it for waits, not
// for every request. A byte the watch reads belongs to a next request sent
// before this answer (HTTP pipelining, which MCP clients do not do): it
// cannot be given back, so the connection closes after this answer.
func ClientGone(c *fiber.Ctx) (gone <-chan struct{}, stop func()) {
	conn := c.Context().Conn()
	ch, done := make(chan struct{}), make(chan struct{})
	var stopping atomic.Bool
	var read int
	// The request was read: fasthttp's deadline for reading it (the
	// server's ReadTimeout) is not the wait's; it sets its own again
	// before it reads the next request.
	_ = conn.SetReadDeadline(time.Time{})
	go func() {
		defer close(done)
		var b [1]byte
		n, err := conn.Read(b[:])
		read = n
		if n == 0 && err != nil && !stopping.Load() {
			close(ch)
		}
	}()
	return ch, sync.OnceFunc(func() {
		stopping.Store(true)
		_ = conn.SetReadDeadline(time.Unix(1, 0)) // ends the watch's read at once
		<-done
		_ = conn.SetReadDeadline(time.Time{})
		if read > 0 {
			c.Context().SetConnectionClose()
		}
	})
}
