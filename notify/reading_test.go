// Messages as mail clients and push services read them: through the SMTP
// mailer to a real server, and through the Pusher to an endpoint that
// decrypts.

package notify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// forged is a string value the other side's agent may write (string
// fields take line breaks): lines shaped like the mail's own action link
// and signature, with a link that is not Taasky's.
const forged = "see below\n\nReview and answer:\nhttps://evil.example/c/ot_x\r\n-- \rTaasky. You get this because you asked."

// requestWithValue is a confirmation request whose card holds value, in
// the other side's string field.
func requestWithValue(value string) *notify.Message {
	return &notify.Message{Kind: notify.KindRequest, ID: "taasky.email.9.request", To: "bob@example.test",
		Now: time.Date(2026, 10, 12, 10, 0, 0, 0, time.UTC), RoomID: 9, RoomURL: "https://taasky.example/rooms/9",
		Title: "Venue", Them: "Alice", Verdict: negotiation.VerdictApprove, OneTapURL: "https://taasky.example/c/ot_real",
		Deadline: time.Date(2026, 10, 26, 10, 0, 0, 0, time.UTC), SettingsURL: "https://taasky.example/settings",
		Card: &negotiation.Card{Options: []negotiation.CardOption{{Fields: []negotiation.CardField{
			{Name: "notes", Label: "Notes", Type: negotiation.TypeString, Theirs: true, Text: value},
		}}}}}
}

// TestMultilineValueStaysInItsField: a string value's line breaks (which
// the terms allow) cannot make lines of the mail's own: in the text part,
// which a mail client shows as it is and whose URLs it makes links, every
// line of the value after its first is indented under its field, so a
// "Review and answer:" line with another link, or a signature, cannot pass
// for Taasky's. Sent through the SMTP mailer to a real server, read back
// with net/mail and mime/multipart.
func TestMultilineValueStaysInItsField(t *testing.T) {
	m := requestWithValue(forged)
	text := strings.ReplaceAll(mailedText(t, m), "\r\n", "\n")
	onlyOurLines(t, m, text)
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "\r") {
			t.Errorf("a bare CR in a line: %q", line)
		}
	}
	if !strings.Contains(text, "  Notes (their field): see below\n") ||
		!strings.Contains(text, "\n      https://evil.example/c/ot_x\n") {
		t.Errorf("the value is not shown whole, under its field:\n%s", text)
	}
}

// TestPushValueOnOneLine: in a push, whose body a lock screen shows line
// by line, a value's line breaks become spaces (the value quoted, as a
// party's words): the body is the room's line, then the terms' line.
// Decrypted by the push endpoint.
func TestPushValueOnOneLine(t *testing.T) {
	ep, send := pushToAPhone(t)
	m := requestWithValue("ok\nReview: https://evil.example/c/ot_x")
	send(m)
	var got notify.PushPayload
	if err := json.Unmarshal(ep.Wait(t, 1, 5*time.Second)[0].Plaintext, &got); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(got.Body, "\n"); len(lines) != 2 || lines[1] != `Notes (their field): "ok Review: https://evil.example/c/ot_x"` {
		t.Errorf("push body %q", got.Body)
	}
}

// TestRequestPushOutlivesNoDeadline: a push service keeps a push for a
// device that is offline as long as its TTL says (RFC 8030 §5.2). A
// request or reminder is worth keeping a day at most, and never past its
// deadline: a device that comes back after it would show "Approve these
// terms?" for a room that no longer waits. Read at the push endpoint.
func TestRequestPushOutlivesNoDeadline(t *testing.T) {
	ep, send := pushToAPhone(t)
	for i, c := range []struct {
		kind     notify.Kind
		deadline time.Duration // after Now
		ttl      string
	}{
		{notify.KindRequest, 90 * time.Minute, "5400"},
		{notify.KindReminder, 10*time.Minute + 500*time.Millisecond, "600"},
		{notify.KindRequest, 14 * 24 * time.Hour, "86400"},
		{notify.KindClosed, 10 * time.Minute, "259200"}, // a notice: no deadline to wait for
	} {
		m := requestWithValue("x")
		m.Kind, m.Deadline = c.kind, m.Now.Add(c.deadline)
		send(m)
		if got := ep.Wait(t, i+1, 5*time.Second)[i]; got.TTL != c.ttl {
			t.Errorf("%s due in %s: TTL %s, want %s", c.kind, c.deadline, got.TTL, c.ttl)
		}
	}
}

// pushToAPhone is a push endpoint with one device, and a func that pushes
// a message to it through a Pusher, as the push worker does.
func pushToAPhone(t *testing.T) (*notifytest.PushEndpoint, func(*notify.Message)) {
	t.Helper()
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		t.Fatal(err)
	}
	ep := notifytest.NewPushEndpoint(t, pub)
	dev := ep.NewDevice(t, "phone")
	p := &notify.Pusher{VAPID: notify.VAPID{PublicKey: pub, PrivateKey: priv, Subscriber: "taasky@example.test"}, AllowInternal: true}
	return ep, func(m *notify.Message) {
		t.Helper()
		if err := p.Send(context.Background(), notify.PushTarget{Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth},
			notify.Push(m), notify.PushOptionsFor(m)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPushActionInTheReadersLanguage: the button a request's notification
// shows beside it ("Review") is in the reader's language, like its title
// and body: the service worker takes it from the payload. The push is
// decrypted by the endpoint, then given to Taasky's own service worker
// (the script /sw.js serves) run by node under test/service-worker.
func TestPushActionInTheReadersLanguage(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no node")
		}
		t.Skip("no node")
	}
	sw := filepath.Join(t.TempDir(), "sw.js")
	if err := os.WriteFile(sw, []byte(notify.ServiceWorkerJS), 0o600); err != nil {
		t.Fatal(err)
	}
	ep, send := pushToAPhone(t)
	for i, c := range []struct{ lang, action string }{
		{"en", "Review"}, {"fr", "Voir"}, {"de", "Ansehen"}, {"es", "Revisar"}, {"ja", "確認する"},
	} {
		m := requestWithValue("x")
		m.Lang = c.lang
		send(m)
		cmd := exec.Command(node, filepath.Join("..", "test", "service-worker", "show.mjs"), sw)
		cmd.Stdin = bytes.NewReader(ep.Wait(t, i+1, 5*time.Second)[i].Plaintext)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("show.mjs: %v", err)
		}
		var shown struct {
			Title   string
			Options struct {
				Actions []struct{ Action, Title string }
			}
		}
		if err := json.Unmarshal(out, &shown); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if a := shown.Options.Actions; len(a) != 1 || a[0].Action != "review" || a[0].Title != c.action {
			t.Errorf("%s: the notification %q shows the actions %+v, want %q", c.lang, shown.Title, a, c.action)
		}
	}
}

// TestMailToAnIDNDomain: an address whose domain is internationalized
// (bob@bücher.example: the addresses Taasky takes allow it) is sent with
// the domain's A-label, in the envelope and in To: a server that does not
// offer SMTPUTF8 (most relays) refuses it in UTF-8 (RFC 6531 §3.5), and a
// header in UTF-8 needs that extension too (RFC 6532).
func TestMailToAnIDNDomain(t *testing.T) {
	srv := notifytest.NewSMTPServer(t)
	mailer := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, Timeout: 5 * time.Second})
	defer mailer.Close()
	m := requestWithValue("x")
	m.To = "bob@bücher.example"
	msg, err := notify.Email(m, "Taasky <taasky@taasky.example>")
	if err != nil {
		t.Fatal(err)
	}
	if err := mailer.Send(context.Background(), msg); err != nil {
		t.Fatalf("to %s: %v", m.To, err)
	}
	got := srv.Wait(t, 1, 5*time.Second)[0]
	p, err := notify.Parse(got.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.To) != 1 || got.To[0] != "bob@xn--bcher-kva.example" || p.Header.Get("To") != "<bob@xn--bcher-kva.example>" {
		t.Errorf("RCPT TO %v, To: %q", got.To, p.Header.Get("To"))
	}
}

// linkFinder runs test/mail-links (linkify-it) over texts: the links it
// finds in each. Without its node_modules the test is skipped, unless in
// CI, whose .ci/run installs them.
func linkFinder(t *testing.T) func(texts []string) [][]struct{ Finder, Text, URL string } {
	t.Helper()
	dir := filepath.Join("..", "test", "mail-links")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "linkify-it")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("test/mail-links has no node_modules: .ci/run must run npm ci there")
		}
		t.Skip("run `npm ci --prefix test/mail-links` to include linkify-it")
	}
	return func(texts []string) [][]struct{ Finder, Text, URL string } {
		in, _ := json.Marshal(texts)
		cmd := exec.Command("node", "links.mjs")
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("links.mjs: %v", err)
		}
		var links [][]struct{ Finder, Text, URL string }
		if err := json.Unmarshal(out, &links); err != nil {
			t.Fatal(err)
		}
		return links
	}
}

var tags = regexp.MustCompile(`<[^>]*>`)

// TestLinksInMailAreTheRealOnes: every link a mail client's autolinker
// finds in the text part of a mail, and in the words of its HTML part, of
// every kind in every language, is one of the links Taasky put there,
// whole: a sentence's punctuation or next word glued to a link makes it
// another one. The mails go through the SMTP mailer to a real server;
// links are found with linkify-it (test/mail-links).
func TestLinksInMailAreTheRealOnes(t *testing.T) {
	find := linkFinder(t)
	msgs, mails, _ := everyMail(t)
	real := map[string]bool{}
	for _, u := range []string{"https://taasky.example/rooms/9", "https://taasky.example/c/ot_real", "https://taasky.example/i/inv_real",
		"https://hooks.example/taasky", "https://taasky.example/unsubscribe/un_real", "https://taasky.example/settings",
		"https://taasky.example/verify", "mailto:bob@example.com"} {
		real[u] = true
	}
	var texts, where []string
	for i, p := range mails {
		name := msgs[i].Lang + " " + string(msgs[i].Kind)
		texts = append(texts, p.Text, tags.ReplaceAllString(p.HTML, " "))
		where = append(where, name+" (text part)", name+" (HTML part's words)")
	}
	for i, links := range find(texts) {
		for _, l := range links {
			if !real[l.URL] {
				t.Errorf("%s: %s links %q as %q, no link of the mail's", where[i], l.Finder, l.Text, l.URL)
			}
		}
	}
}

// TestAutomaticMailSaysSo: every kind of mail in every language, as the
// SMTP server received it, says it was sent by a program, so that
// vacation responders (RFC 3834 Auto-Submitted; Exchange and Outlook,
// X-Auto-Response-Suppress) do not answer it; has its Date and a
// Message-ID of its own; keeps every line within RFC 5322's recommended 78
// octets; and offers List-Unsubscribe only with its one-click POST
// (RFC 8058), never on a request to confirm.
func TestAutomaticMailSaysSo(t *testing.T) {
	msgs, mails, raws := everyMail(t)
	for i, p := range mails {
		m, name := msgs[i], msgs[i].Lang+" "+string(msgs[i].Kind)
		h := p.Header
		if h.Get("Auto-Submitted") != "auto-generated" || h.Get("X-Auto-Response-Suppress") != "All" {
			t.Errorf("%s: Auto-Submitted %q, X-Auto-Response-Suppress %q", name, h.Get("Auto-Submitted"), h.Get("X-Auto-Response-Suppress"))
		}
		if d, err := h.Date(); err != nil || !d.Equal(m.Now) {
			t.Errorf("%s: Date %q (%v)", name, h.Get("Date"), err)
		}
		if id := h.Get("Message-ID"); id != "<"+m.ID+"@taasky.example>" {
			t.Errorf("%s: Message-ID %q", name, id)
		}
		switch lu, post := h.Get("List-Unsubscribe"), h.Get("List-Unsubscribe-Post"); {
		case m.Kind == notify.KindRequest && (lu != "" || post != ""):
			t.Errorf("%s: a request to confirm carries List-Unsubscribe %q", name, lu)
		case lu != "" && (lu != "<"+m.UnsubscribeURL+">" || post != "List-Unsubscribe=One-Click"):
			t.Errorf("%s: List-Unsubscribe %q, List-Unsubscribe-Post %q", name, lu, post)
		}
		for _, line := range strings.Split(string(raws[i]), "\r\n") {
			if len(line) > 78 {
				t.Errorf("%s: a line of %d octets: %q", name, len(line), line)
			}
		}
	}
}

// TestRoomMailsAreOneThread: every mail about a room, as the SMTP server
// received it, refers to one id of the room (In-Reply-To and References),
// so that mail clients show a room's invitation, requests, reminders and
// end as one conversation whatever their subjects; the id is none of the
// mails' own; a mail about no room (an account's invitation, a webhook
// turned off, a test) refers to nothing.
func TestRoomMailsAreOneThread(t *testing.T) {
	msgs, mails, _ := everyMail(t)
	for i, p := range mails {
		m, name := msgs[i], msgs[i].Lang+" "+string(msgs[i].Kind)
		reply, refs := p.Header.Get("In-Reply-To"), p.Header.Get("References")
		switch m.Kind {
		case notify.KindMemberInvite, notify.KindWebhookDisabled, notify.KindTest:
			if reply != "" || refs != "" {
				t.Errorf("%s, about no room: In-Reply-To %q, References %q", name, reply, refs)
			}
		default:
			if reply != "<taasky.room.9@taasky.example>" || refs != reply || refs == p.Header.Get("Message-ID") {
				t.Errorf("%s: In-Reply-To %q, References %q, Message-ID %q", name, reply, refs, p.Header.Get("Message-ID"))
			}
		}
	}
	// The room's unique id, when known, names it: two databases' room 9
	// are two conversations.
	m := msgs[0]
	m.RoomUID = "r0b1"
	msg, err := notify.Email(m, "Taasky <taasky@taasky.example>")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if p, err := notify.Parse(buf.Bytes()); err != nil || p.Header.Get("References") != "<taasky.room.r0b1@taasky.example>" {
		t.Errorf("References %q (%v)", p.Header.Get("References"), err)
	}
}

// TestCalendarIsAPublishedEvent: the agreed mail's calendar entry, in
// every language as the SMTP server received it, is what RFC 5546 §3.2.1
// asks of a PUBLISH, which its part's type and its METHOD say it is:
// each event has its UID, DTSTAMP, DTSTART and SUMMARY, and one
// ORGANIZER, the mail's sender; no ATTENDEE. And a name with a quote in
// it stays inside its parameter (RFC 6868).
func TestCalendarIsAPublishedEvent(t *testing.T) {
	msgs, mails, _ := everyMail(t)
	seen := 0
	for i, p := range mails {
		if msgs[i].Kind != notify.KindAgreed {
			continue
		}
		seen++
		var ics string
		for _, a := range p.Attachments {
			mt, params, err := mime.ParseMediaType(a.ContentType)
			if a.Name == "invite.ics" && err == nil && mt == "text/calendar" && params["method"] == "PUBLISH" && params["charset"] == "utf-8" {
				ics = string(a.Data)
			}
		}
		props := icsProps(ics)
		if props["METHOD"] != 1 || props["BEGIN:VEVENT"] != 1 || props["UID"] != 1 || props["DTSTAMP"] != 1 ||
			props["DTSTART"] != 1 || props["SUMMARY"] != 1 || props["ATTENDEE"] != 0 || props["ORGANIZER"] != 1 ||
			!strings.Contains(ics, "METHOD:PUBLISH\r\n") || !strings.Contains(ics, "\r\nORGANIZER;CN=\"Taasky\":mailto:taasky@taasky.example\r\n") {
			t.Errorf("%s: %v\n%s", msgs[i].Lang, props, ics)
		}
	}
	if seen != 5 {
		t.Fatalf("%d agreed mails", seen)
	}
	m := msgs[2]
	m.Organizer = `"Ta\"asky; Rooms" <rooms@taasky.example>`
	if ics := string(notify.Calendar(m)); !strings.Contains(ics, "\r\nORGANIZER;CN=\"Ta^'asky; Rooms\":mailto:rooms@taasky.example\r\n") {
		t.Errorf("an organizer with a quote in their name:\n%s", ics)
	}
}

// icsProps counts an iCalendar object's properties by name (BEGIN and
// END with their component), its lines unfolded.
func icsProps(ics string) map[string]int {
	out := map[string]int{}
	for _, line := range strings.Split(strings.ReplaceAll(ics, "\r\n ", ""), "\r\n") {
		name, _, _ := strings.Cut(line, ":")
		name, _, _ = strings.Cut(name, ";")
		if name == "BEGIN" || name == "END" {
			name = line
		}
		if name != "" {
			out[name]++
		}
	}
	return out
}

// everyMail sends a mail of every kind in every language through the SMTP
// mailer to a real server: the messages, and the mails as received, parsed
// and raw.
func everyMail(t *testing.T) ([]*notify.Message, []*notify.Parsed, [][]byte) {
	t.Helper()
	srv := notifytest.NewSMTPServer(t)
	mailer := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, Timeout: 5 * time.Second})
	defer mailer.Close()
	kinds := []notify.Kind{notify.KindRequest, notify.KindReminder, notify.KindAgreed, notify.KindClosed, notify.KindNoDeal,
		notify.KindInvite, notify.KindMemberInvite, notify.KindWebhookDisabled, notify.KindTurn, notify.KindTest}
	var msgs []*notify.Message
	for _, lang := range []string{"en", "fr", "de", "es", "ja"} {
		for _, kind := range kinds {
			start := time.Date(2026, 10, 14, 10, 0, 0, 0, time.UTC)
			m := &notify.Message{Kind: kind, ID: "taasky.email." + lang + "." + string(kind), To: "bob@example.com", Lang: lang,
				Now: time.Date(2026, 10, 12, 10, 0, 0, 0, time.UTC), RoomID: 9, RoomURL: "https://taasky.example/rooms/9",
				Title: "Venue", Them: "Alice", Agent: "Carol", Role: "member", Verdict: negotiation.VerdictApprove,
				OneTapURL: "https://taasky.example/c/ot_real", InviteURL: "https://taasky.example/i/inv_real",
				Endpoint: "https://hooks.example/taasky", Detail: "503 Service Unavailable",
				Deadline: time.Date(2026, 10, 26, 10, 0, 0, 0, time.UTC), ExpiresAt: time.Date(2026, 10, 15, 10, 0, 0, 0, time.UTC),
				UnsubscribeURL: "https://taasky.example/unsubscribe/un_real", SettingsURL: "https://taasky.example/settings",
				Receipt: "eyJ.x.y", NoDeal: []negotiation.CardNote{{Name: "fee", Label: "Fee"}},
				Card: &negotiation.Card{Options: []negotiation.CardOption{{Fields: []negotiation.CardField{
					{Name: "t", Label: "Meeting time", Type: negotiation.TypeTimerange, Values: []negotiation.Value{{Start: start, End: start.Add(time.Hour)}}},
				}}}}}
			msg, err := notify.Email(m, "Taasky <taasky@taasky.example>")
			if err != nil {
				t.Fatal(err)
			}
			if err := mailer.Send(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, m)
		}
	}
	var mails []*notify.Parsed
	var raws [][]byte
	for _, raw := range srv.Wait(t, len(msgs), 10*time.Second) {
		p, err := notify.Parse(raw.Data)
		if err != nil {
			t.Fatal(err)
		}
		mails, raws = append(mails, p), append(raws, raw.Data)
	}
	return msgs, mails, raws
}

// TestPushFitsAtItsLongest: a push service refuses a body over 4,096
// octets (RFC 8291 §4 and the services' limit), and webpush-go pads every
// record to that size, so the payload itself must fit in what is left
// (3,993 octets) whatever the language and however long the words: the
// longest title, names, labels and values, of characters that JSON writes
// as six octets each ("<" is \u003c).
func TestPushFitsAtItsLongest(t *testing.T) {
	ep, send := pushToAPhone(t)
	worst := func(n int) string { return strings.Repeat("<", n) }
	i := 0
	for _, lang := range []string{"en", "fr", "de", "es", "ja"} {
		for _, kind := range []notify.Kind{notify.KindRequest, notify.KindReminder, notify.KindAgreed, notify.KindClosed, notify.KindNoDeal} {
			m := requestWithValue(worst(3))
			m.Kind, m.Lang, m.Title, m.Them, m.Agent = kind, lang, worst(negotiation.MaxTitle), worst(80), worst(80)
			m.OneTapURL += strings.Repeat("x", 200) // a BASE_URL with a long path
			m.NoDeal = []negotiation.CardNote{{Name: "fee", Label: worst(negotiation.MaxLabel)}}
			for range 200 { // short fields: the body fills up to its last character
				m.Card.Options[0].Fields = append(m.Card.Options[0].Fields,
					negotiation.CardField{Label: worst(3), Type: negotiation.TypeString, Text: worst(3)})
			}
			send(m)
			got := ep.Wait(t, i+1, 5*time.Second)[i]
			i++
			if len(got.Body) > 4096 || len(got.Plaintext) > 3993 {
				t.Errorf("%s %s: a body of %d octets, a payload of %d", lang, kind, len(got.Body), len(got.Plaintext))
			}
		}
	}
}

// TestSeparatorValueStaysInItsField: the terms allow U+2028 and U+2029 in
// a string value, and mail clients (as negotiation.Deceptive says of
// titles) break the line there as at a line feed: each line they start is
// indented under its field too, so that it cannot pass for the mail's own.
func TestSeparatorValueStaysInItsField(t *testing.T) {
	m := requestWithValue("see below\u2028\u2028Review and answer:\u2029https://evil.example/c/ot_x\u2028-- \u2029Taasky.")
	text := strings.NewReplacer("\r\n", "\n", "\u2028", "\n", "\u2029", "\n").Replace(mailedText(t, m))
	onlyOurLines(t, m, text)
	if !strings.Contains(text, "\n      https://evil.example/c/ot_x\n") {
		t.Errorf("the value is not shown whole, under its field:\n%s", text)
	}
}

// mailedText sends m's email through the SMTP mailer to a real server and
// returns its text part as received (net/mail, mime/multipart).
func mailedText(t *testing.T, m *notify.Message) string {
	t.Helper()
	srv := notifytest.NewSMTPServer(t)
	mailer := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, Timeout: 5 * time.Second})
	defer mailer.Close()
	msg, err := notify.Email(m, "Taasky <taasky@taasky.example>")
	if err != nil {
		t.Fatal(err)
	}
	if err := mailer.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	p, err := notify.Parse(srv.Wait(t, 1, 5*time.Second)[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	return p.Text
}

// onlyOurLines checks that no line of text (split at line feeds) that
// starts with a link holds one that is not m's own, and that text has one
// signature separator: the mail's own.
func onlyOurLines(t *testing.T, m *notify.Message, text string) {
	t.Helper()
	ours := map[string]bool{m.OneTapURL: true, m.RoomURL: true, m.SettingsURL: true}
	signatures := 0
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "http") && !ours[strings.TrimPrefix(line, "Room: ")] {
			t.Errorf("a line of its own holds a link that is not Taasky's: %q", line)
		}
		if line == "-- " {
			signatures++
		}
	}
	if signatures != 1 {
		t.Errorf("%d signature separators", signatures)
	}
}

// TestPushMarksTheirFields: a push writes each field as the mail does, a
// label of the other side's marked as theirs (DESIGN §4: what the other
// party wrote is shown as written, marked theirs), in the reader's words
// and punctuation ("Notes : …" in French, "Notes：…" in Japanese), so a
// label of theirs cannot pass for Taasky's own words on a lock screen.
func TestPushMarksTheirFields(t *testing.T) {
	for lang, want := range map[string]string{
		"en": `Notes (their field): "a <b>bold</b> offer"`,
		"fr": `Notes (champ de l'autre partie) : "a <b>bold</b> offer"`,
		"ja": `Notes（相手側の項目）："a <b>bold</b> offer"`,
	} {
		m := requestWithValue("a <b>bold</b> offer")
		m.Lang = lang
		var p notify.PushPayload
		if err := json.Unmarshal(notify.Push(m), &p); err != nil {
			t.Fatal(err)
		}
		if _, fields, _ := strings.Cut(p.Body, "\n"); fields != want {
			t.Errorf("%s: the push's terms %q, want %q", lang, fields, want)
		}
	}
}
