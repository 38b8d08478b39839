package dashboard

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"

	"github.com/gofiber/fiber/v2"
)

//go:embed static
var staticFiles embed.FS

var staticTypes = map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
	".svg": "image/svg+xml"}

// staticFile is an embedded file as served: its type, its bytes, the same
// gzipped (nil when that is not smaller), and its version, a hash of its
// bytes.
type staticFile struct {
	typ         string
	plain, gzip []byte
	version     string
}

// statics are the embedded files, read and compressed once, at start:
// serving one costs no compression.
var statics = loadStatics()

func loadStatics() map[string]staticFile {
	files := map[string]staticFile{}
	entries, err := fs.ReadDir(staticFiles, "static")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	for _, e := range entries {
		typ, ok := staticTypes[path.Ext(e.Name())]
		if !ok {
			continue
		}
		b, err := staticFiles.ReadFile("static/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(b)
		f := staticFile{typ: typ, plain: b, version: hex.EncodeToString(sum[:6])}
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		_, _ = w.Write(b)
		_ = w.Close()
		if z.Len() < len(b) {
			f.gzip = z.Bytes()
		}
		files[e.Name()] = f
	}
	return files
}

// staticURL is the address of an embedded file as this build has it
// (?v=, its version): pages name it so, and a browser keeps it for a year
// without asking again (static); a build with another file names another
// address.
func staticURL(name string) string {
	f, ok := statics[name]
	if !ok {
		panic("dashboard: no static file " + name) // a template's mistake, found by any test of a page
	}
	return "/static/" + name + "?v=" + f.version
}

// static serves the embedded stylesheet and script. Asked for with this
// build's version (staticURL), it may be kept for good; otherwise (a page
// of an older build during an upgrade, or no version) for 5 minutes. Its
// version is its ETag (with "-gzip" for the gzipped file), so a
// browser's check after that costs a 304. It is
// gzipped for a browser that takes gzip: a phone on a slow network loads
// about a third of the bytes on its first page.
func (d *Dashboard) static(c *fiber.Ctx) error {
	f, ok := statics[c.Params("file")]
	if !ok {
		return c.Status(fiber.StatusNotFound).SendString("not found")
	}
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	if c.Query("v") == f.version {
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	}
	// The gzipped and the plain file are two representations, each with
	// its own ETag (RFC 9110 §8.8.3).
	body, etag := f.plain, f.version
	gz := f.gzip != nil && c.Get(fiber.HeaderAcceptEncoding) != "" && c.AcceptsEncodings("gzip") == "gzip"
	if gz {
		body, etag = f.gzip, f.version+"-gzip"
	}
	c.Set(fiber.HeaderETag, `"`+etag+`"`)
	if c.Fresh() {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, f.typ)
	if gz {
		c.Set(fiber.HeaderContentEncoding, "gzip")
	}
	return c.Send(body)
}
