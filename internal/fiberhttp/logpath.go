package fiberhttp

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

// shownParams are the route parameters a log line may show: ids, slugs
// and file names. Every other one (":token", ":code", a wildcard) is a
// capability or may be one, a one-tap link, an invitation code, a seat
// token, and stays the route's placeholder.
var shownParams = map[string]bool{"id": true, "slug": true, "user": true, "msg": true, "account": true, "file": true}

// LogPath is the request's path as a log line shows it: the matched
// route with its ids filled in and its tokens left as placeholders
// ("/c/:token", "/rooms/42"). A log never holds a working link.
func LogPath(c *fiber.Ctx) string {
	r := c.Route()
	if r == nil || r.Path == "" {
		return "?"
	}
	segs := strings.Split(r.Path, "/")
	for i, s := range segs {
		if !strings.HasPrefix(s, ":") {
			continue // a literal, or a wildcard whose value is not shown
		}
		name := strings.TrimSuffix(s[1:], "?")
		if shownParams[name] {
			segs[i] = c.Params(name)
		}
	}
	return strings.Join(segs, "/")
}
