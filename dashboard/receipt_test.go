package dashboard

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// agreed takes a joined room to agreed, both humans answering in the
// dashboard's service; it returns the room id.
func (b *bundle) agreed() int64 {
	b.t.Helper()
	ta, tb, id := b.joined("Design review", meeting(3, 10, "video", "250"), "")
	v, err := b.rooms.Read(b.ctx, b.alpha, ta)
	if err != nil {
		b.t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	for _, s := range []struct {
		agent app.Agent
		token string
		user  app.User
	}{{b.beta, tb, b.bob}, {b.alpha, ta, b.alice}} {
		c, _, err := b.rooms.RequestConfirmation(b.ctx, s.agent, s.token, negotiation.VerdictApprove, hash)
		if err != nil {
			b.t.Fatal(err)
		}
		if _, err := b.rooms.DecideAsOwner(b.ctx, s.user.ID, id, c.ID, hash, true); err != nil {
			b.t.Fatal(err)
		}
	}
	return id
}

// TestReceiptPagesAndVerify, over real HTTP: the room page of an agreed
// room offers its receipt; the file verifies with another JOSE library
// against the published JWK Set; the printable page says the facts in
// words; a stranger's /verify (no sign-in, CSRF-checked, pasted or
// uploaded) says valid with the facts, or which problem.
func TestReceiptPagesAndVerify(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.agreed()
	alice := b.client(&b.alice)
	room := "/rooms/" + strconv.FormatInt(id, 10)
	if code, _, body := alice.get(room); code != 200 || !strings.Contains(body, `href="`+room+`/receipt.jws"`) || !strings.Contains(body, "data-receipt-page") {
		t.Fatalf("room page %d lacks the receipt:\n%s", code, body)
	}
	req := httpRequest(t, alice, room+"/receipt.jws")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	file, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/jose" ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), `filename="taasky-receipt-room-`+strconv.FormatInt(id, 10)+`.jws"`) {
		t.Fatalf("download: %d %v", resp.StatusCode, resp.Header)
	}

	// Another JOSE implementation, with the keys as published.
	resp, err = http.Get(b.base + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	set, err := jwk.ParseReader(resp.Body)
	resp.Body.Close()
	if err != nil || resp.Header.Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("jwks: %v %v", err, resp.Header)
	}
	payload, err := jws.Verify(file, jws.WithKeySet(set, jws.WithRequireKid(true)))
	if err != nil || !bytes.Contains(payload, []byte(`"account":"Beta & Co"`)) {
		t.Fatalf("jwx: %v %s", err, payload)
	}

	_, _, page := alice.get(room + "/receipt")
	for _, want := range []string{"Design review", "Account: Alpha Studio", "Account: Beta &amp; Co", "on the Taasky dashboard", "EUR\u00a0250.00",
		"The room&#39;s log:", b.base + "/verify"} {
		if !strings.Contains(page, want) {
			t.Errorf("the printable receipt lacks %q", want)
		}
	}
	if strings.Contains(page, "@example.test") && strings.Contains(strings.SplitN(page, "<footer", 2)[0], "@example.test") {
		t.Error("the printable receipt shows an email address")
	}
	carol := b.client(&b.carol)
	if code, _, _ := carol.get(room + "/receipt.jws"); code != 404 {
		t.Errorf("a person of no seat's account got %d", code)
	}

	// A stranger at /verify, with a browser's cookie jar.
	jar, _ := cookiejar.New(nil)
	stranger := &http.Client{Jar: jar}
	form := func() string {
		resp, err := stranger.Get(b.base + "/verify")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := csrfInput.FindSubmatch(body)
		if resp.StatusCode != 200 || m == nil || !bytes.Contains(body, []byte(`enctype="multipart/form-data"`)) {
			t.Fatalf("/verify: %d\n%s", resp.StatusCode, body)
		}
		return string(m[1])
	}
	post := func(values url.Values) (int, string) {
		resp, err := stranger.PostForm(b.base+"/verify", values)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	code, body := post(url.Values{"_csrf": {form()}, "receipt": {string(file)}})
	if code != 200 || !strings.Contains(body, `data-verdict="valid"`) || !strings.Contains(body, "Account: Beta &amp; Co") {
		t.Fatalf("a good receipt: %d\n%s", code, body)
	}
	parts := strings.Split(string(file), ".")
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString(bytes.Replace(raw, []byte("250.00"), []byte("25.00"), 1)) + "." + parts[2]
	var facts map[string]any
	if err := json.Unmarshal(raw, &facts); err != nil {
		t.Fatal(err)
	}
	facts["iss"] = "https://evil.example"
	evilPayload, _ := json.Marshal(facts)
	evil := parts[0] + "." + base64.RawURLEncoding.EncodeToString(evilPayload) + "." + parts[2]
	for name, c := range map[string]struct{ text, want string }{
		"tampered":       {forged, "it was changed after it was signed"},
		"issuer changed": {evil, "it was changed after it was signed"},
		"malformed":      {"not a receipt", "this is not a Taasky receipt"},
		"empty":          {"", "Paste a receipt or choose its file."},
	} {
		code, body := post(url.Values{"_csrf": {form()}, "receipt": {c.text}})
		if code < 400 || !strings.Contains(body, `data-verdict="invalid"`) || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %q", name, code, c.want)
		}
	}
	if code, _ := post(url.Values{"receipt": {string(file)}}); code != http.StatusForbidden {
		t.Errorf("without the CSRF token: %d", code)
	}
	// Uploaded as a file.
	var mp bytes.Buffer
	w := multipart.NewWriter(&mp)
	_ = w.WriteField("_csrf", form())
	fw, _ := w.CreateFormFile("file", "taasky-receipt.jws")
	_, _ = fw.Write(file)
	w.Close()
	resp, err = stranger.Post(b.base+"/verify", w.FormDataContentType(), &mp)
	if err != nil {
		t.Fatal(err)
	}
	up, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !regexp.MustCompile(`data-verdict="valid"`).Match(up) {
		t.Fatalf("an uploaded receipt: %d\n%s", resp.StatusCode, up)
	}
}

// httpRequest is a GET to the test server as cl (its session cookie).
func httpRequest(t *testing.T, cl *client, path string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, cl.b.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range cl.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	return req
}
