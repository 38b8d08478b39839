package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/bench"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// verifyDir holds the tools nobody on the Taasky team wrote (jose,
// standardwebhooks, ical.js) and the scripts that use them as the public
// docs say.
var verifyDir = filepath.Join("..", "..", "test", "verify")

// needVerifyTools skips the test without test/verify's node_modules,
// except in CI, whose .ci/run installs them.
func needVerifyTools(t *testing.T) {
	t.Helper()
	for _, pkg := range []string{"jose", "standardwebhooks", "ical.js"} {
		if _, err := os.Stat(filepath.Join(verifyDir, "node_modules", pkg)); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("test/verify has no node_modules: .ci/run must run npm ci --prefix test/verify")
			}
			t.Skip("run `npm ci --prefix test/verify` to check the agreement with jose, standardwebhooks and ical.js")
		}
	}
}

// runVerify runs a script of test/verify with node, stdin given, and
// returns its stdout; the test fails when the script does.
func runVerify(t *testing.T, stdin []byte, script string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "node", append([]string{script}, args...)...)
	cmd.Dir = verifyDir
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s %s: %v\n%s%s", script, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// delivery is one webhook request as a receiver got it.
type delivery struct {
	Headers map[string]string `json:"headers"` // as Node's http server gives them: names in lower case
	Body    []byte            `json:"body"`    // base64 in JSON
}

// hookReceiver is a webhook endpoint on 127.0.0.1 that keeps every
// request and answers 204, but 503 to the first message of type failFirst
// (its retry comes later, with the same webhook-id).
type hookReceiver struct {
	URL       string
	failFirst string
	mu        sync.Mutex
	got       []delivery
	failed    bool
	wake      chan struct{}
}

func newHookReceiver(t *testing.T, failFirst string) *hookReceiver {
	r := &hookReceiver{wake: make(chan struct{}, 1), failFirst: failFirst}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		d := delivery{Headers: map[string]string{}, Body: body}
		for name, v := range req.Header {
			d.Headers[strings.ToLower(name)] = strings.Join(v, ", ")
		}
		var p struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(body, &p)
		r.mu.Lock()
		r.got = append(r.got, d)
		fail := p.Type == r.failFirst && !r.failed
		r.failed = r.failed || fail
		r.mu.Unlock()
		select {
		case r.wake <- struct{}{}:
		default:
		}
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/hooks"
	return r
}

// waitFor returns every delivery once n of them are of type typ.
func (r *hookReceiver) waitFor(t *testing.T, typ string, n int) []delivery {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		got := append([]delivery(nil), r.got...)
		r.mu.Unlock()
		seen := 0
		for _, d := range got {
			var p struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(d.Body, &p) == nil && p.Type == typ {
				seen++
			}
		}
		if seen >= n {
			return got
		}
		select {
		case <-r.wake:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%d %s webhooks after 30 s, want %d; received %d in all", seen, typ, n, len(got))
		}
	}
}

var (
	csrfInPage  = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)
	secretShown = regexp.MustCompile(`data-secret-value>(whsec_[^<]+)<`)
	rotateForm  = regexp.MustCompile(`action="(/accounts/[a-z0-9-]+/webhooks/\d+/rotate)"`)
)

// formPost gets page with browser, posts form (with the page's CSRF
// token) to action, and returns the answer's body; it fails the test
// unless the answer is a 200.
func formPost(t *testing.T, browser *http.Client, page, action string, form url.Values) []byte {
	t.Helper()
	resp, err := browser.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfInPage.FindSubmatch(b)
	if m == nil {
		t.Fatalf("GET %s: %d, no form\n%s", page, resp.StatusCode, b)
	}
	form.Set("_csrf", html.UnescapeString(string(m[1])))
	resp, err = browser.PostForm(action, form)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %d\n%s", action, resp.StatusCode, b)
	}
	return b
}

// getBody is a GET that must answer 200.
func getBody(t *testing.T, browser *http.Client, u string) []byte {
	t.Helper()
	resp, err := browser.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d\n%s", u, resp.StatusCode, b)
	}
	return b
}

// addWebhookRotated adds an endpoint for every event at the account's
// Settings → Webhooks as the signed-in owner, then rotates its secret: it
// returns the first secret and the one the rotation showed (both sign for
// a day).
func addWebhookRotated(t *testing.T, base, slug string, owner *http.Client, endpoint string) (first, second string) {
	t.Helper()
	page := base + "/accounts/" + slug + "/webhooks"
	events := []string{"room.opened", "room.joined", "room.moved", "confirmation.requested", "confirmation.answered",
		"room.agreed", "room.closed", "mail.undelivered"}
	body := string(formPost(t, owner, page, page, url.Values{"url": {endpoint}, "events": events}))
	m := secretShown.FindStringSubmatch(body)
	rot := rotateForm.FindStringSubmatch(body)
	if m == nil || rot == nil {
		t.Fatalf("adding the endpoint showed no secret or no rotate button:\n%s", body)
	}
	first = html.UnescapeString(m[1])
	body = string(formPost(t, owner, page, base+rot[1], url.Values{}))
	if m = secretShown.FindStringSubmatch(body); m == nil || html.UnescapeString(m[1]) == first {
		t.Fatalf("the rotation showed no new secret:\n%s", body)
	}
	return first, html.UnescapeString(m[1])
}

// confirmFromMail opens the one-tap link of the newest confirmation
// request mailed to email not answered yet, and confirms, as the human
// tapping it would.
func confirmFromMail(t *testing.T, smtp *notifytest.SMTPServer, email string, used map[string]bool) {
	t.Helper()
	link := ""
	for end := time.Now().Add(30 * time.Second); link == "" && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		for _, m := range smtp.Mails() {
			if l := bench.OneTapURL(m.Data); l != "" && !used[l] && len(m.To) == 1 && m.To[0] == email {
				link = l
			}
		}
	}
	if link == "" {
		t.Fatalf("no confirmation request mailed to %s", email)
	}
	used[link] = true
	jar, _ := cookiejar.New(nil)
	web := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	resp, err := web.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	form := url.Values{"answer": {"confirm"}}
	for _, m := range formField.FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	resp, err = web.PostForm(link, form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `data-result="applied"`) {
		t.Fatalf("%s's one-tap confirm answered %d:\n%s", email, resp.StatusCode, body)
	}
}

// agreedMail is the "agreed" mail sent to email, parsed.
func agreedMail(t *testing.T, smtp *notifytest.SMTPServer, email string) *notify.Parsed {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		for _, m := range smtp.Mails() {
			if len(m.To) != 1 || m.To[0] != email {
				continue
			}
			p, err := notify.Parse(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range p.Attachments {
				if a.Name == "invite.ics" {
					return p
				}
			}
		}
	}
	t.Fatalf("no agreed mail with its .ics reached %s", email)
	return nil
}

// agreedMailAbout is the agreed mail to email of the same room as other
// (the same thread).
func agreedMailAbout(t *testing.T, smtp *notifytest.SMTPServer, email string, other *notify.Parsed) *notify.Parsed {
	t.Helper()
	thread := other.Header.Get("References")
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		for _, m := range smtp.Mails() {
			p, err := notify.Parse(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.To) == 1 && m.To[0] == email && p.Header.Get("References") == thread {
				for _, a := range p.Attachments {
					if a.Name == "invite.ics" {
						return p
					}
				}
			}
		}
	}
	t.Fatalf("no agreed mail of the thread %s reached %s", thread, email)
	return nil
}

func attachment(t *testing.T, p *notify.Parsed, suffix string) []byte {
	t.Helper()
	for _, a := range p.Attachments {
		if strings.HasSuffix(a.Name, suffix) {
			return a.Data
		}
	}
	t.Fatalf("the mail %q has no %s attachment", p.Subject, suffix)
	return nil
}

// agreementStack is taasky dev mailing through a real SMTP server, demo-a
// (alice) sending its webhooks to a receiver on 127.0.0.1, and a room the
// two demo agents negotiated and both humans confirmed from their mails'
// one-tap links.
type agreementStack struct {
	base         string
	alice        *http.Client // signed in to the dashboard: demo-a's owner
	smtp         *notifytest.SMTPServer
	hooks        *hookReceiver
	secrets      [2]string // the endpoint's first secret, and the one its rotation showed
	agents       [2]*mcp.ClientSession
	tokens       [2]string
	hash         string
	start, end   string          // the agreed meeting, as the terms say it
	used         map[string]bool // one-tap links answered
	title, place string
}

func newAgreementStack(t *testing.T) *agreementStack {
	t.Helper()
	s := &agreementStack{smtp: notifytest.NewSMTPServer(t), hooks: newHookReceiver(t, "room.agreed"),
		title: "Kick-off; review & plan", place: "Room 4, Berlin",
		start: "2027-03-29T09:30:00+02:00", end: "2027-03-29T10:15:00+02:00"}
	e := devEnv(t)
	e["SMTP_URL"] = "smtp://" + net.JoinHostPort(s.smtp.Host, strconv.Itoa(s.smtp.Port))
	e["SMTP_FROM"] = "Taasky <taasky@example.test>"
	p := start(t, e, "dev")
	out := p.waitStdout(t, "Stop with Ctrl-C.")
	keys := regexp.MustCompile(`tsk_[A-Za-z0-9_-]{43}`).FindAllString(out, -1)
	if len(keys) != 2 {
		t.Fatalf("agent keys printed: %q", keys)
	}
	s.base = e["BASE_URL"]
	s.alice, _, _ = signIn(t, s.base, "/settings", "alice@example.test")
	s.secrets[0], s.secrets[1] = addWebhookRotated(t, s.base, "demo-a", s.alice, s.hooks.URL)
	for i, slug := range []string{"demo-a", "demo-b"} {
		client := mcp.NewClient(&mcp.Implementation{Name: "verify-test", Version: "1"}, nil)
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp/" + slug,
			HTTPClient: &http.Client{Transport: bearer(keys[i]), Timeout: 30 * time.Second}, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		s.agents[i] = cs
	}
	schema := map[string]any{
		"meeting": map[string]any{"type": "timerange", "label": "Meeting"},
		"place":   map[string]any{"type": "string", "label": "Where"},
	}
	_, opened := callTool(t, s.agents[0], "negotiation_open", map[string]any{"title": s.title, "subject_schema": schema})
	s.tokens[0] = opened["room_token"].(string)
	_, joined := callTool(t, s.agents[1], "negotiation_join", map[string]any{"invite_url": opened["invite_url"], "subject_schema": schema})
	s.tokens[1] = joined["room_token"].(string)
	callTool(t, s.agents[0], "negotiation_propose", map[string]any{"room_token": s.tokens[0], "verdict": "offer",
		"subject": map[string]any{"meeting": map[string]any{"start": s.start, "end": s.end}, "place": s.place}})
	raw, read := callTool(t, s.agents[1], "negotiation_read", map[string]any{"room_token": s.tokens[1]})
	var view struct {
		Room struct {
			TermsOnTable struct {
				Options []struct {
					SubjectHash string `json:"subject_hash"`
				} `json:"options"`
			} `json:"terms_on_table"`
		} `json:"room"`
	}
	if err := json.Unmarshal([]byte(raw), &view); err != nil || len(view.Room.TermsOnTable.Options) != 1 {
		t.Fatalf("b's read: %v %v", err, read)
	}
	s.hash = view.Room.TermsOnTable.Options[0].SubjectHash
	s.used = map[string]bool{}
	for i, email := range []string{"bob@example.test", "alice@example.test"} {
		side := 1 - i
		callTool(t, s.agents[side], "negotiation_respond", map[string]any{"room_token": s.tokens[side], "verdict": "approve", "subject_hash": s.hash})
		confirmFromMail(t, s.smtp, email, s.used)
	}
	raw, _ = callTool(t, s.agents[0], "negotiation_read", map[string]any{"room_token": s.tokens[0]})
	var agreed struct {
		Room struct {
			State string `json:"state"`
		} `json:"room"`
	}
	_ = json.Unmarshal([]byte(raw), &agreed)
	if agreed.Room.State != "agreed" {
		t.Fatalf("the room is not agreed:\n%s", raw)
	}
	return s
}

// receipt is the receipt an agent gets: negotiation_read with receipt: true.
func (s *agreementStack) receipt(t *testing.T, side int) string {
	t.Helper()
	_, out := callTool(t, s.agents[side], "negotiation_read", map[string]any{"room_token": s.tokens[side], "receipt": true})
	jws, _ := out["receipt"].(string)
	if jws == "" {
		t.Fatalf("side %d's read has no receipt: %v", side, out)
	}
	return jws
}

// agreedAt is the moment the receipt says the room was agreed (read
// without verifying: receipt.mjs verifies it).
func (s *agreementStack) agreedAt(t *testing.T) time.Time {
	t.Helper()
	parts := strings.Split(s.receipt(t, 0), ".")
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Room struct {
			AgreedAt time.Time `json:"agreed_at"`
		} `json:"room"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	return p.Room.AgreedAt
}

// receiptFacts is what receipt.mjs read in a receipt jose verified.
type receiptFacts struct {
	Typ, Iss, Kid string
	Room          struct {
		ID    int64  `json:"id"`
		Title string `json:"title"`
	} `json:"room"`
	Parties map[string]struct {
		Account      string `json:"account"`
		Confirmation struct {
			Channel, Verdict string
		} `json:"confirmation"`
	} `json:"parties"`
	Terms       map[string]json.RawMessage `json:"terms"`
	SubjectHash string                     `json:"subject_hash"`
}

// verifyReceipt has jose verify the receipt in file against jwks (a URL,
// or a JWK Set file), and checks what it read against the agreement.
func (s *agreementStack) verifyReceipt(t *testing.T, file, jwks string) receiptFacts {
	t.Helper()
	var got struct {
		Header struct {
			Alg, Typ, Kid string
		} `json:"header"`
		Payload receiptFacts `json:"payload"`
	}
	out := runVerify(t, nil, "receipt.mjs", file, jwks, s.base)
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("receipt.mjs printed %s: %v", out, err)
	}
	h, p := got.Header, got.Payload
	if h.Alg != "EdDSA" || h.Typ != "taasky-receipt+jws" || !strings.HasPrefix(h.Kid, "taasky-receipt-1-") || p.Kid != h.Kid {
		t.Errorf("header %+v, payload's kid %q", h, p.Kid)
	}
	if p.Typ != "taasky-receipt/1" || p.Iss != s.base || p.Room.Title != s.title || p.SubjectHash != s.hash {
		t.Errorf("payload: typ %q iss %q title %q hash %q; want %q %q", p.Typ, p.Iss, p.Room.Title, p.SubjectHash, s.base, s.hash)
	}
	if len(p.Parties) != 2 || p.Parties["a"].Account == "" || p.Parties["b"].Account == "" {
		t.Errorf("parties %+v", p.Parties)
	}
	for side, c := range p.Parties {
		if c.Confirmation.Channel != "email" || c.Confirmation.Verdict != "approve" {
			t.Errorf("side %s confirmed %+v, want approve by email", side, c.Confirmation)
		}
	}
	var place string
	var meeting struct{ Start, End time.Time }
	_ = json.Unmarshal(p.Terms["place"], &place)
	_ = json.Unmarshal(p.Terms["meeting"], &meeting)
	start, _ := time.Parse(time.RFC3339, s.start)
	end, _ := time.Parse(time.RFC3339, s.end)
	if place != s.place || !meeting.Start.Equal(start) || !meeting.End.Equal(end) {
		t.Errorf("the receipt's terms: %s", out)
	}
	return p
}

// TestAgreementCheckedByOthers: what an agreement leaves its humans and
// their systems, checked with tools nobody on the Taasky team wrote,
// following only the public docs, on what the running service produced:
// the signed receipt an agent reads (and the one attached to the agreed
// mail, and the room.agreed webhook's) verified with panva's jose against
// the JWK Set fetched from {BASE_URL}/.well-known/jwks.json; every webhook
// delivery of a rotated endpoint verified with the official
// standardwebhooks package under each of the two secrets, and refused once
// its body or timestamp is changed; the agreed mail's .ics read by
// Mozilla's ical.js, its event at exactly the agreed instants.
func TestAgreementCheckedByOthers(t *testing.T) {
	t.Parallel()
	needVerifyTools(t)
	s := newAgreementStack(t)

	t.Run("receipt", func(t *testing.T) {
		jws := s.receipt(t, 0)
		if theirs := s.receipt(t, 1); theirs != jws {
			t.Errorf("the two sides read different receipts")
		}
		dir := t.TempDir()
		write := func(name string, b []byte) string {
			f := filepath.Join(dir, name)
			if err := os.WriteFile(f, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return f
		}
		facts := s.verifyReceipt(t, write("read.jws", []byte(jws)), s.base+jwksPath)
		// The same receipt as the human gets it: attached to the agreed
		// mail, downloaded from the room page, in the account's export
		// (verified offline against the keys the export holds).
		files := map[string][]byte{
			"the agreed mail's": attachment(t, agreedMail(t, s.smtp, "alice@example.test"), ".jws"),
			"the room page's":   getBody(t, s.alice, fmt.Sprintf("%s/rooms/%d/receipt.jws", s.base, facts.Room.ID)),
		}
		for name, b := range files {
			if string(b) != jws {
				t.Errorf("%s receipt file is not the receipt the agent reads: %q", name, b)
			}
			s.verifyReceipt(t, write("file.jws", b), s.base+jwksPath)
		}
		settings := s.base + "/accounts/demo-a/settings"
		var export struct {
			Rooms []struct {
				ID      int64  `json:"id"`
				Receipt string `json:"receipt"`
			} `json:"rooms"`
			ReceiptIssuer string          `json:"receipt_issuer"`
			ReceiptKeys   json.RawMessage `json:"receipt_keys"`
		}
		raw := formPost(t, s.alice, settings, s.base+"/accounts/demo-a/export", url.Values{})
		if err := json.Unmarshal(raw, &export); err != nil || len(export.Rooms) != 1 || export.Rooms[0].Receipt != jws || export.ReceiptIssuer != s.base {
			t.Fatalf("the export: %v\n%s", err, raw)
		}
		s.verifyReceipt(t, write("export.jws", []byte(export.Rooms[0].Receipt)), write("jwks.json", export.ReceiptKeys))
	})

	t.Run("webhooks", func(t *testing.T) {
		// room.agreed's first attempt was answered 503: its retry is the
		// same message (webhook-id, body), signed again at its own moment.
		got := s.hooks.waitFor(t, "room.agreed", 2)
		in, _ := json.Marshal(map[string]any{"secrets": map[string]string{"first": s.secrets[0], "rotated": s.secrets[1]}, "deliveries": got})
		out := strings.TrimSpace(runVerify(t, in, "webhook.mjs"))
		types := map[string]int{}
		for _, line := range strings.Split(out, "\n") {
			var r struct {
				ID         string          `json:"id"`
				Type       string          `json:"type"`
				VerifiedBy []string        `json:"verified_by"`
				FetchBy    []string        `json:"fetch_verified_by"`
				Refused    map[string]bool `json:"refused"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("webhook.mjs printed %q: %v", line, err)
			}
			types[r.Type]++
			if len(r.VerifiedBy) != 2 || len(r.FetchBy) != 2 {
				t.Errorf("%s (%s) verified by %v (from a Fetch Request: %v), want both secrets during the rotation", r.ID, r.Type, r.VerifiedBy, r.FetchBy)
			}
			if !r.Refused["body"] || !r.Refused["timestamp"] || !r.Refused["stale"] || len(r.Refused) != 3 {
				t.Errorf("%s (%s): changed copies refused %v, want every one", r.ID, r.Type, r.Refused)
			}
		}
		for _, want := range []string{"room.opened", "room.joined", "room.moved", "confirmation.requested", "confirmation.answered", "room.agreed"} {
			if types[want] == 0 {
				t.Errorf("no %s verified; got %v", want, types)
			}
		}
		var agreed []delivery
		for _, d := range got {
			var p struct {
				Type      string    `json:"type"`
				Timestamp time.Time `json:"timestamp"`
				Data      struct {
					Receipt string `json:"receipt"`
				} `json:"data"`
			}
			if json.Unmarshal(d.Body, &p) == nil && p.Type == "room.agreed" {
				agreed = append(agreed, d)
				if p.Data.Receipt != s.receipt(t, 0) {
					t.Errorf("the room.agreed webhook's receipt is not the one the agent reads")
				}
				// The event happened when the room was agreed: the
				// moment the receipt states.
				if !p.Timestamp.Equal(s.agreedAt(t)) {
					t.Errorf("room.agreed's timestamp %s, the receipt's agreed_at %s", p.Timestamp, s.agreedAt(t))
				}
			}
		}
		first, retry := agreed[0], agreed[1]
		t1, _ := strconv.ParseInt(first.Headers["webhook-timestamp"], 10, 64)
		t2, _ := strconv.ParseInt(retry.Headers["webhook-timestamp"], 10, 64)
		if retry.Headers["webhook-id"] != first.Headers["webhook-id"] || !bytes.Equal(retry.Body, first.Body) || t2 <= t1 {
			t.Errorf("room.agreed retried as %v, first sent as %v: want the same id and body, a later timestamp", retry.Headers, first.Headers)
		}
	})

	t.Run("calendar", func(t *testing.T) {
		type event struct {
			UID, Summary, Start, End, Organizer, Status, URL, Description string
			StartZone                                                     string `json:"start_zone"`
			EndZone                                                       string `json:"end_zone"`
			Duration                                                      int    `json:"duration_seconds"`
		}
		var uids []string
		for _, email := range []string{"alice@example.test", "bob@example.test"} {
			file := filepath.Join(t.TempDir(), "invite.ics")
			if err := os.WriteFile(file, attachment(t, agreedMail(t, s.smtp, email), "invite.ics"), 0o600); err != nil {
				t.Fatal(err)
			}
			out := runVerify(t, nil, "ics.mjs", file)
			var cal struct {
				Method, Version string
				Events          []event
			}
			if err := json.Unmarshal([]byte(out), &cal); err != nil || len(cal.Events) != 1 {
				t.Fatalf("%s's .ics, read by ical.js: %s %v", email, out, err)
			}
			e := cal.Events[0]
			start, _ := time.Parse(time.RFC3339, s.start)
			end, _ := time.Parse(time.RFC3339, s.end)
			if cal.Method != "PUBLISH" || cal.Version != "2.0" {
				t.Errorf("%s: METHOD %q VERSION %q", email, cal.Method, cal.Version)
			}
			if e.Start != start.UTC().Format("2006-01-02T15:04:05.000Z") || e.End != end.UTC().Format("2006-01-02T15:04:05.000Z") ||
				e.Duration != 45*60 || e.StartZone != "UTC" || e.EndZone != "UTC" {
				t.Errorf("%s: the event %s (%s) to %s (%s), %d s; want %s to %s", email, e.Start, e.StartZone, e.End, e.EndZone, e.Duration, s.start, s.end)
			}
			if !strings.Contains(e.Summary, s.title) || e.Status != "CONFIRMED" || e.Organizer != "mailto:taasky@example.test" {
				t.Errorf("%s: SUMMARY %q STATUS %q ORGANIZER %q", email, e.Summary, e.Status, e.Organizer)
			}
			if !strings.HasPrefix(e.UID, "taasky-room-") || !strings.HasSuffix(e.UID, "@127.0.0.1") {
				t.Errorf("%s: UID %q", email, e.UID)
			}
			uids = append(uids, e.UID)
		}
		if uids[0] != uids[1] {
			t.Errorf("the two sides' entries have UIDs %q and %q: one meeting, two entries", uids[0], uids[1])
		}
	})

	// A person without an account answers the invitation in the browser:
	// the receipt and the .ics they are mailed, and those their personal
	// page offers, checked the same way.
	t.Run("person", func(t *testing.T) {
		_, opened := callTool(t, s.agents[0], "negotiation_open", map[string]any{"title": s.title,
			"subject_schema": map[string]any{"meeting": map[string]any{"type": "timerange", "label": "Meeting"}, "place": map[string]any{"type": "string", "label": "Where"}},
			"subject":        map[string]any{"meeting": map[string]any{"start": s.start, "end": s.end}, "place": s.place}})
		jar, _ := cookiejar.New(nil)
		person := &http.Client{Jar: jar, Timeout: 20 * time.Second}
		invite := opened["invite_url"].(string)
		page := string(getBody(t, person, invite))
		form := url.Values{"verdict": {"approve"}, "email": {"pat@example.test"}}
		for name, re := range map[string]*regexp.Regexp{"_csrf": csrfInPage, "seat_nonce": regexp.MustCompile(`name="seat_nonce" value="([^"]+)"`),
			"subject_hash": regexp.MustCompile(`name="subject_hash" value="([^"]+)"`)} {
			m := re.FindStringSubmatch(page)
			if m == nil {
				t.Fatalf("the invitation page has no %s:\n%s", name, page)
			}
			form.Set(name, html.UnescapeString(m[1]))
		}
		hash := form.Get("subject_hash")
		resp, err := person.PostForm(invite, form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		seat := resp.Request.URL
		if resp.StatusCode != 200 || !strings.HasPrefix(seat.Path, "/p/") {
			t.Fatalf("the person's approval led to %d %s", resp.StatusCode, seat)
		}
		callTool(t, s.agents[0], "negotiation_respond", map[string]any{"room_token": opened["room_token"], "verdict": "approve", "subject_hash": hash})
		confirmFromMail(t, s.smtp, "alice@example.test", s.used)
		_, out := callTool(t, s.agents[0], "negotiation_read", map[string]any{"room_token": opened["room_token"], "receipt": true})
		jws, _ := out["receipt"].(string)
		if jws == "" {
			t.Fatalf("no receipt: %v", out)
		}
		mail := agreedMail(t, s.smtp, "pat@example.test")
		seatBase := s.base + seat.Path
		dir := t.TempDir()
		for name, b := range map[string][]byte{
			"mailed":     attachment(t, mail, ".jws"),
			"downloaded": getBody(t, person, seatBase+"/receipt.jws"),
		} {
			if string(b) != jws {
				t.Errorf("the person's %s receipt is not the one the agent reads: %q", name, b)
			}
			f := filepath.Join(dir, name+".jws")
			if err := os.WriteFile(f, b, 0o600); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Payload struct {
					Parties map[string]struct {
						Account      string                   `json:"account"`
						Confirmation struct{ Channel string } `json:"confirmation"`
					} `json:"parties"`
					SubjectHash string `json:"subject_hash"`
				} `json:"payload"`
			}
			if err := json.Unmarshal([]byte(runVerify(t, nil, "receipt.mjs", f, s.base+jwksPath, s.base)), &got); err != nil {
				t.Fatal(err)
			}
			if b := got.Payload.Parties["b"]; b.Account != "" || b.Confirmation.Channel != "invitation" || got.Payload.SubjectHash != hash {
				t.Errorf("the person's side in the receipt: %+v", got.Payload)
			}
		}
		var uids []string
		for name, b := range map[string][]byte{
			"alice's mail":          attachment(t, agreedMailAbout(t, s.smtp, "alice@example.test", mail), "invite.ics"),
			"the person's mail":     attachment(t, mail, "invite.ics"),
			"the person's download": getBody(t, person, seatBase+"/invite.ics"),
		} {
			f := filepath.Join(dir, "invite.ics")
			if err := os.WriteFile(f, b, 0o600); err != nil {
				t.Fatal(err)
			}
			var cal struct {
				Method string
				Events []struct{ UID, Start, End, URL string }
			}
			out := runVerify(t, nil, "ics.mjs", f)
			if err := json.Unmarshal([]byte(out), &cal); err != nil || len(cal.Events) != 1 || cal.Method != "PUBLISH" {
				t.Fatalf("%s, read by ical.js: %s %v", name, out, err)
			}
			start, _ := time.Parse(time.RFC3339, s.start)
			if e := cal.Events[0]; e.Start != start.UTC().Format("2006-01-02T15:04:05.000Z") || strings.Contains(e.URL, "/p/") {
				t.Errorf("%s: %+v", name, e)
			}
			uids = append(uids, cal.Events[0].UID)
		}
		if uids[0] != uids[1] || uids[1] != uids[2] {
			t.Errorf("one meeting, UIDs %q", uids)
		}
	})
}
