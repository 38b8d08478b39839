package fiberhttp

import (
	"bytes"
	"io"
	"net"
)

// Listener is ln, its connections keeping the start of the request
// fasthttp is reading on each: what the refusals fasthttp makes before any
// handler (LingerOnRefusal) need of a request it could not parse, or reset
// when it failed:
//   - its path: the refusal of a request to the MCP door or an OAuth
//     endpoint carries their CORS headers (without them, a page of another
//     origin reads "Failed to fetch" and nothing of why);
//   - whether its request line alone is past the read buffer: a URL too
//     long is 414, not the 431 of headers too many or too long;
//   - whether any of it was read: a client that closes its side in the
//     middle of a request is told 400 (fasthttp took an end of the
//     connection between two chunks of a body for a client with nothing
//     more to send, and closed without a word).
//
// Serve every app with LingerOnRefusal on it.
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, lineEnd: -1}, nil
}

// headKept is how much of a request's start a conn keeps: a method and a
// path, the query cut.
const headKept = 512

// conn counts what was read since the last answer was written: the
// request being read, unless one was read whole since (spent). fasthttp
// reads and writes a connection from one goroutine.
type conn struct {
	net.Conn
	read    int    // bytes read since the last write
	head    []byte // the first headKept of them
	lineEnd int    // the offset of the first '\n' among them, or -1
	// spent: a request was read whole since the last write (it reached
	// the handler), its answer not written yet: what follows it was
	// pipelined behind it, read with it, and where the next request
	// starts among the bytes read is fasthttp's alone to know. Its start
	// kept is the request before, whose path a refusal of the next must
	// not take.
	spent bool
}

var continueLine = []byte("HTTP/1.1 100 Continue\r\n\r\n")

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.spent {
		if len(c.head) < headKept {
			c.head = append(c.head, p[:min(n, headKept-len(c.head))]...)
		}
		if c.lineEnd < 0 {
			if i := bytes.IndexByte(p[:n], '\n'); i >= 0 {
				c.lineEnd = c.read + i
			}
		}
	}
	c.read += n
	if err == io.EOF && c.read > 0 {
		// The client ended its side within a request.
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (c *conn) Write(p []byte) (int, error) {
	// "100 Continue" answers nothing: the request goes on.
	if !bytes.Equal(p, continueLine) {
		c.read, c.head, c.lineEnd, c.spent = 0, c.head[:0], -1, false
	}
	return c.Conn.Write(p)
}

// spend says that the request nc (a conn) kept the start of was read
// whole: it reached the handler.
func spend(nc net.Conn) {
	if c, isConn := nc.(*conn); isConn {
		c.spent = true
	}
}

// requestLine is the method and the path of the request nc (a conn) is
// reading, as far as it was read; ok is false if nc is no conn, what it
// read does not start as a request line, or the start it kept is a
// request's read whole before (spent: the one failing was pipelined
// behind it).
func requestLine(nc net.Conn) (method, path string, ok bool) {
	c, isConn := nc.(*conn)
	if !isConn || c.spent {
		return "", "", false
	}
	m, rest, found := bytes.Cut(c.head, []byte(" "))
	if !found || len(m) == 0 || bytes.ContainsAny(m, "\r\n\t") || len(rest) == 0 || rest[0] != '/' {
		return "", "", false
	}
	if i := bytes.IndexAny(rest, " ?#\r\n"); i >= 0 {
		rest = rest[:i]
	}
	return string(m), string(rest), true
}

// lineTooLong says whether nc (a conn) read size bytes of a request
// without the end of its first line (never of one pipelined behind a
// request read whole: spent).
func lineTooLong(nc net.Conn, size int) bool {
	c, isConn := nc.(*conn)
	return isConn && !c.spent && c.read >= size && (c.lineEnd < 0 || c.lineEnd >= size)
}
