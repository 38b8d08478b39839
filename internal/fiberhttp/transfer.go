package fiberhttp

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// ChunkedOnly refuses a request whose Transfer-Encoding is anything but
// chunked, at once and closing the connection: 400 when its last coding
// is not chunked (its body's length cannot be known, RFC 9112 §6.3), 501
// when it names another coding before chunked (none is implemented: RFC
// 9112 §6.1). fasthttp reads any Transfer-Encoding but identity as
// chunked: a request sent "Transfer-Encoding: gzip" waited for a chunk
// size until the read timeout (30 s), and one sent "gzip, chunked" reached
// the routes with its body still coded. It sets app's HeaderReceived, so
// that such a body is not read, and returns the handler that refuses the
// request: run it before every route.
func ChunkedOnly(app *fiber.App) fiber.Handler {
	app.Server().HeaderReceived = func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
		if _, _, refused := transferRefusal(h.RawHeaders()); refused {
			// Read no body: the handler refuses the request and
			// the connection closes.
			h.SetContentLength(0)
		}
		return fasthttp.RequestConfig{}
	}
	return func(c *fiber.Ctx) error {
		status, msg, refused := transferRefusal(c.Request().Header.RawHeaders())
		if !refused {
			return c.Next()
		}
		// What the client still sends of the body, read before the
		// answer (as LingerOnRefusal does): closing on it would reset
		// the connection before the client reads why.
		drain(c.Context().Conn())
		c.Set(fiber.HeaderConnection, "close")
		return fiber.NewError(status, msg)
	}
}

// transferRefusal is the status and the words refusing a request whose
// header block is raw, for its Transfer-Encoding; refused is false when
// it has none, chunked alone, or "identity" alone (fasthttp reads that,
// in that case, as none). One naming no coding is refused: fasthttp
// reads it as chunked, past a Content-Length.
func transferRefusal(raw []byte) (status int, msg string, refused bool) {
	var codings []string
	value, named := "", false
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		name, v, ok := bytes.Cut(line, []byte(":"))
		if !ok || !strings.EqualFold(string(bytes.TrimSpace(name)), fiber.HeaderTransferEncoding) {
			continue
		}
		named = true
		v = bytes.TrimSpace(v)
		if value != "" {
			value += ", "
		}
		value += string(v)
		for _, coding := range strings.Split(string(v), ",") {
			// A coding's parameters (";q=…") do not change its name.
			coding, _, _ = strings.Cut(coding, ";")
			if coding = strings.ToLower(strings.TrimSpace(coding)); coding != "" {
				codings = append(codings, coding)
			}
		}
	}
	if named && len(codings) == 0 {
		return fiber.StatusBadRequest, "Transfer-Encoding names no coding (send the body chunked, or with a Content-Length and no Transfer-Encoding)", true
	}
	if len(codings) == 0 || len(codings) == 1 && (codings[0] == "chunked" || value == "identity") {
		return 0, "", false
	}
	if len(value) > 40 {
		value = value[:40] + "…"
	}
	if codings[len(codings)-1] != "chunked" {
		return fiber.StatusBadRequest, fmt.Sprintf("Transfer-Encoding %q does not end in chunked: the body's length cannot be known (send it with a Content-Length, or chunked)", value), true
	}
	for _, coding := range codings[:len(codings)-1] {
		if coding == "chunked" {
			return fiber.StatusBadRequest, fmt.Sprintf("Transfer-Encoding %q applies chunked more than once", value), true
		}
	}
	return fiber.StatusNotImplemented, fmt.Sprintf("Transfer-Encoding %q is not implemented: send the body chunked alone, or with a Content-Length", value), true
}
