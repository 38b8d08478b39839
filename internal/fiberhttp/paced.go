package fiberhttp

import (
	"io"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
)

// PaceIdle: a paced answer's client is cut after PaceIdle without
// reading, or when it reads slower on average than its rate (past the
// first PaceIdle).
const PaceIdle = time.Minute

// Paced is an answer's body for fasthttp's SetBodyStream that goes on for
// as long as its client reads it. The server's WriteTimeout is fasthttp's
// deadline for a whole answer, set once as it starts: a large answer (tens
// of MB: a data download, a room's whole history) to a slow connection was
// cut there, every time it was asked for. Each Read moves the connection's
// write deadline on instead (PaceIdle, and at least rate bytes a second on
// average); fasthttp sets its own again for the next answer. done is called
// once, when fasthttp closes the body (written, or failed); r is closed
// then if it is an io.Closer.
type Paced struct {
	r     io.Reader
	conn  net.Conn
	rate  int64
	start time.Time
	sent  int64
	done  func()
}

// NewPaced is r as c's answer body, sent while its client reads at least
// rate bytes a second on average, with done called once it is closed.
func NewPaced(c *fiber.Ctx, r io.Reader, rate int64, done func()) *Paced {
	return &Paced{r: r, conn: c.Context().Conn(), rate: max(1, rate), start: time.Now(), done: done}
}

func (p *Paced) Read(b []byte) (int, error) {
	deadline := time.Now().Add(PaceIdle)
	if most := p.start.Add(PaceIdle + time.Duration(p.sent+int64(len(b)))*time.Second/time.Duration(p.rate)); most.Before(deadline) {
		deadline = most
	}
	_ = p.conn.SetWriteDeadline(deadline)
	n, err := p.r.Read(b)
	p.sent += int64(n)
	return n, err
}

func (p *Paced) Close() error {
	var err error
	if c, ok := p.r.(io.Closer); ok {
		err = c.Close()
	}
	p.done()
	return err
}
