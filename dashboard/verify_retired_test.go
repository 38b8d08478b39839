package dashboard

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/receipt"
)

// TestVerifyAReceiptOfARetiredKey: after a rotation of SECRET_KEY the
// service keeps publishing the old key's public receipt keys, so that the
// receipts they signed stay verifiable; but whoever knew the old key (a
// former administrator, a leaked .env: whom the rotation is for) can sign
// with it. /verify calls a receipt of a retired key valid only when it is
// the one the database keeps for its room: another, on other terms or for
// a room never agreed, is not valid, saying why; the kept one is.
func TestVerifyAReceiptOfARetiredKey(t *testing.T) {
	t.Parallel()
	var old *receipt.Keyring
	b := setup(t, func(c *Config) {
		var err error
		// The keys of the SECRET_KEY rotated away, as PublishReceiptKeys
		// keeps them.
		if old, err = receipt.NewKeyring(c.BaseURL, 1, func(v int) []byte { return bytes.Repeat([]byte{byte(100 + v)}, 32) }); err != nil {
			t.Fatal(err)
		}
		if err := c.Receipts.Keep(old.Public()); err != nil {
			t.Fatal(err)
		}
	})
	id := b.agreed()
	jws, err := b.rooms.Receipt(b.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(jws string) (int, string) { t.Helper(); return verifyAsStranger(t, b.base, jws) }
	var r receipt.Receipt
	parts := strings.Split(jws, ".")
	if err := json.Unmarshal(must(base64.RawURLEncoding.DecodeString(parts[1])), &r); err != nil {
		t.Fatal(err)
	}
	// The old key's holder: the same room on other terms.
	r.Terms = json.RawMessage(`{"fee":{"amount":"1.00","currency":"EUR"}}`)
	forged, err := old.Sign(&r)
	if err != nil {
		t.Fatal(err)
	}
	code, body := verify(forged)
	if code != http.StatusUnprocessableEntity || strings.Contains(body, `data-verdict="valid"`) || !strings.Contains(body, "retired") {
		t.Errorf("a receipt of the retired key the database does not keep: %d\n%s", code, body)
	}
	// The same on terms of another length, and on the kept receipt's own
	// terms (only its kid and signature differ from the kept one's).
	for _, terms := range []string{`{"fee":{"amount":"1000000.00","currency":"EUR"}}`, ""} {
		other := r
		if terms != "" {
			other.Terms = json.RawMessage(terms)
		} else {
			var kept receipt.Receipt
			if err := json.Unmarshal(must(base64.RawURLEncoding.DecodeString(parts[1])), &kept); err != nil {
				t.Fatal(err)
			}
			other = kept
		}
		again, err := old.Sign(&other)
		if err != nil {
			t.Fatal(err)
		}
		if code, body := verify(again); code != http.StatusUnprocessableEntity || strings.Contains(body, `data-verdict="valid"`) {
			t.Errorf("a receipt of the retired key (terms %q) the database does not keep: %d\n%s", terms, code, body)
		}
	}
	// A receipt the retired key signed before the rotation: the one kept.
	if _, err := b.pool.Exec(b.ctx, `UPDATE receipts SET jws = $1 WHERE room_id = $2`, forged, id); err != nil {
		t.Fatal(err)
	}
	if code, body := verify(forged); code != 200 || !strings.Contains(body, `data-verdict="valid"`) || strings.Contains(body, "data-off-record") {
		t.Errorf("the kept receipt of a retired key: %d\n%s", code, body)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// verifyAsStranger pastes jws into /verify's form as a visitor who is not
// signed in: the answer's status and page.
func verifyAsStranger(t *testing.T, base, jws string) (int, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	stranger := &http.Client{Jar: jar}
	resp, err := stranger.Get(base + "/verify")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfInput.FindSubmatch(page)
	if m == nil {
		t.Fatalf("/verify has no form:\n%s", page)
	}
	resp, err = stranger.PostForm(base+"/verify", url.Values{"_csrf": {string(m[1])}, "receipt": {jws}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
