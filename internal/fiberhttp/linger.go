package fiberhttp

import (
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// What a refused request may still send before the refusal is written.
const (
	lingerIdle  = 250 * time.Millisecond // no byte for this long: the client is done
	lingerMost  = time.Second
	lingerBytes = 64 << 20
)

// LingerOnRefusal makes app read what a client is still sending of a
// request that fasthttp refuses before any handler sees it (a header past
// its read buffer: 431; a body past the limit: 413; a request it cannot
// parse: 400), before the refusal is written. fasthttp writes it and
// closes at once: bytes of the request still arriving then make the kernel
// reset the connection, and the client's pending write or read fails
// without the answer. Reading them first (up to a second or 64 MiB, and
// until the client pauses for 250 ms) lets the client read its error, as
// net/http's lingering close does (it waits 500 ms). A client's writes can
// be that far apart on a busy machine: net/http's client sends a long
// request line in 4 KiB pieces, and a 50-ms pause cut one off in the trust
// suites. Clients that write a whole body before reading (Node's fetch,
// the TypeScript MCP SDK's) send tens of MiB past the 4-MiB limit: a
// 1-MiB bound reset half of Node's 5-MiB tries; the second bounds how long
// a client holds the connection. A timeout is refused at once: that
// client is not sending. Served through Listener, a refusal is given the
// method and path fasthttp could not parse or reset (for the door's CORS
// headers and words), a request line alone past the read buffer is 414
// rather than 431, and a client that closed its side mid-request is told
// so.
func LingerOnRefusal(app *fiber.App) {
	srv := app.Server()
	// fasthttp quotes a request it cannot parse in its error, whole when
	// the request line is at fault ("requestURI cannot be empty in
	// \"GET  HTTP/1.1\\r\\nAuthorization: Bearer …\""), and the refusal's
	// words are written back to the client; this makes it quote none.
	srv.SecureErrorLogMessage = true
	refuse := srv.ErrorHandler
	// A request that reaches the handler was read whole: what its
	// connection kept of its start is not the next one's (spend).
	handle := srv.Handler
	srv.Handler = func(ctx *fasthttp.RequestCtx) {
		spend(ctx.Conn())
		handle(ctx)
	}
	srv.ErrorHandler = func(ctx *fasthttp.RequestCtx, err error) {
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			drain(ctx.Conn())
		}
		// A request fasthttp could not parse, or reset as it failed
		// (a body past the limit or cut short): its method and path as
		// Listener's conn read them, for the refusal to be its door's.
		if len(ctx.Request.Header.RawHeaders()) == 0 {
			if method, path, ok := requestLine(ctx.Conn()); ok {
				ctx.Request.Header.SetMethod(method)
				ctx.Request.SetRequestURI(path)
			}
		}
		size := srv.ReadBufferSize
		if size <= 0 {
			size = 4096 // fasthttp's
		}
		if small := new(fasthttp.ErrSmallBuffer); errors.As(err, &small) && lineTooLong(ctx.Conn(), size) {
			// The request line alone is past the buffer: a URL too long
			// (RFC 9110 §15.5.15), not headers too large.
			c := app.AcquireCtx(ctx)
			defer app.ReleaseCtx(c)
			if err := app.ErrorHandler(c, fiber.ErrRequestURITooLong); err != nil {
				ctx.Error(fiber.ErrRequestURITooLong.Message, fiber.StatusRequestURITooLong)
			}
			return
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = quoteless{msg: "the request ended before it was whole: the client closed its side of the connection", err: err}
		}
		refuse(ctx, withoutRequest(err))
	}
}

// withoutRequest is err without what fasthttp appends to a request it
// cannot parse ("cannot parse Content-Length: … Buffer size=292", and
// without SecureErrorLogMessage ", contents: \"POST /mcp/… Authorization:
// Bearer …\""): the refusal's words are written to the client (and
// through a proxy, to whatever logs it), and the request's bytes would
// carry its credentials and cookies back.
func withoutRequest(err error) error {
	msg := err.Error()
	i := strings.Index(msg, " Buffer size=")
	if i < 0 {
		return err
	}
	return quoteless{msg: strings.TrimSuffix(strings.TrimSpace(msg[:i]), "."), err: err}
}

// quoteless is an error of fasthttp's with other words: errors.Is and As
// still find what it wraps (Fiber maps the refusal's status from them).
type quoteless struct {
	msg string
	err error
}

func (q quoteless) Error() string { return q.msg }
func (q quoteless) Unwrap() error { return q.err }

// drain reads and drops what conn receives until it pauses for lingerIdle,
// lingerMost has passed or lingerBytes were read.
func drain(conn net.Conn) {
	end := time.Now().Add(lingerMost)
	buf := make([]byte, 16<<10)
	for read := 0; read < lingerBytes; {
		deadline := time.Now().Add(lingerIdle)
		if deadline.After(end) {
			deadline = end
		}
		_ = conn.SetReadDeadline(deadline)
		n, err := conn.Read(buf)
		read += n
		if err != nil {
			break
		}
	}
	_ = conn.SetReadDeadline(time.Time{})
}
