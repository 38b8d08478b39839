package dashboard

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"testing"
)

// TestStaticFilesKeptAndGzipped: a page names its stylesheet and script
// with this build's version; asked for so, each may be kept for good,
// otherwise for 5 minutes; its version is its ETag (a check costs a 304);
// a browser that takes gzip gets it gzipped, one that does not gets it
// plain, and both are the same file.
func TestStaticFilesKeptAndGzipped(t *testing.T) {
	t.Parallel()
	b := setup(t)
	get := func(url string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, b.base+url, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		// A Transport of its own that neither asks for gzip nor unpacks it.
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	_, page := get("/")
	for _, name := range []string{"app.css", "app.js"} {
		m := regexp.MustCompile(`"(/static/` + regexp.QuoteMeta(name) + `\?v=([0-9a-f]{12}))"`).FindSubmatch(page)
		if m == nil {
			t.Fatalf("the welcome page names no versioned %s:\n%s", name, page)
		}
		url, version := string(m[1]), string(m[2])

		resp, plain := get(url)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || len(plain) == 0 {
			t.Fatalf("%s without Accept-Encoding: %d, encoding %q, %d bytes", name, resp.StatusCode, resp.Header.Get("Content-Encoding"), len(plain))
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s with this build's version: Cache-Control %q", name, cc)
		}
		if etag := resp.Header.Get("ETag"); etag != `"`+version+`"` {
			t.Errorf("%s: ETag %q, want its version %q", name, etag, version)
		}
		if vary := resp.Header.Get("Vary"); vary != "Accept-Encoding" {
			t.Errorf("%s: Vary %q", name, vary)
		}

		resp, zipped := get(url, "Accept-Encoding", "br, gzip;q=0.8")
		if resp.Header.Get("Content-Encoding") != "gzip" || len(zipped) >= len(plain) {
			t.Fatalf("%s with gzip accepted: encoding %q, %d bytes against %d", name, resp.Header.Get("Content-Encoding"), len(zipped), len(plain))
		}
		if etag := resp.Header.Get("ETag"); etag != `"`+version+`-gzip"` {
			t.Errorf("%s gzipped: ETag %q, want one of its own", name, etag)
		}
		if resp, _ := get(url, "Accept-Encoding", "gzip", "If-None-Match", `"`+version+`-gzip"`); resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s gzipped, checked with its ETag: %d", name, resp.StatusCode)
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped))
		if err != nil {
			t.Fatal(err)
		}
		if unzipped, err := io.ReadAll(zr); err != nil || !bytes.Equal(unzipped, plain) {
			t.Fatalf("%s gzipped is not the same file (%v)", name, err)
		}
		if resp, _ := get(url, "Accept-Encoding", "gzip;q=0"); resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: gzip sent to a browser refusing it", name)
		}

		if resp, body := get(url, "If-None-Match", `"`+version+`"`); resp.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("%s checked with its ETag: %d, %d bytes", name, resp.StatusCode, len(body))
		}
		for _, other := range []string{"/static/" + name, "/static/" + name + "?v=0123456789ab"} {
			if resp, _ := get(other); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=300" {
				t.Errorf("%s: %d, Cache-Control %q, want 5 minutes", other, resp.StatusCode, resp.Header.Get("Cache-Control"))
			}
		}
	}
	if resp, _ := get("/static/nope.css"); resp.StatusCode != 404 {
		t.Errorf("unknown static: %d", resp.StatusCode)
	}
}
