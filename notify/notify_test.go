package notify

import (
	"bytes"
	"encoding/json"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/taasky/taasky/negotiation"
)

func moment(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// sample is a message as the service fills it in: b's card, Paris time.
func sample(kind Kind) *Message {
	paris, _ := time.LoadLocation("Europe/Paris")
	start, end := moment("2026-10-14T10:00:00Z"), moment("2026-10-14T10:30:00.25Z")
	return &Message{
		Kind: kind, ID: "taasky.email.42." + string(kind), To: "bob@example.test", TimeZone: paris,
		Now: moment("2026-10-12T10:00:00Z"), RoomID: 7, RoomURL: "https://taasky.example/rooms/7",
		Title: "Board, review; \"Q4\"", Agent: "Bob's agent", Them: "Alice & Co",
		Verdict: negotiation.VerdictApprove, OneTapURL: "https://taasky.example/c/ot_x",
		Deadline: moment("2026-10-26T10:00:00Z"), ClosedReason: negotiation.ClosedLapsed,
		NoDeal: []negotiation.CardNote{{Name: "fee", Label: "Fee"}}, UnsubscribeURL: "https://taasky.example/unsubscribe/un_x",
		Card: &negotiation.Card{Viewer: "b", TabledBy: "a", Options: []negotiation.CardOption{{
			SubjectHash: "sha256:aa",
			Fields: []negotiation.CardField{
				{Name: "meeting_time", Label: "Meeting time", Type: negotiation.TypeTimerange,
					Values: []negotiation.Value{{Start: start, End: end}}, Text: "Wed 14 Oct 2026, 12:00–12:30:00.25 (Europe/Paris, UTC+02:00)"},
				{Name: "fee", Label: "Fee", Type: negotiation.TypeMoney, Text: "20.00 EUR", Outside: []negotiation.Bound{negotiation.BoundMax}},
				{Name: "room", Label: "Their <b>room</b>", Theirs: true, Type: negotiation.TypeString, Text: "<script>x</script>"},
				{Name: "notes", Label: "Notes", Missing: true, Type: negotiation.TypeString},
			},
		}}, Asking: &negotiation.Confirmation{ID: "cf_1", Verdict: negotiation.VerdictApprove, SubjectHash: "sha256:aa"}},
	}
}

func render(t *testing.T, m *Message) ([]byte, *Parsed) {
	t.Helper()
	return renderFrom(t, m, "Taasky <taasky@taasky.example>")
}

// renderFrom is render with another From.
func renderFrom(t *testing.T, m *Message, from string) ([]byte, *Parsed) {
	t.Helper()
	msg, err := Email(m, from)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), p
}

func TestEmailEveryKind(t *testing.T) {
	subjects := map[Kind]string{
		KindRequest:  "Approve these terms? — Board, review; \"Q4\"",
		KindReminder: "Reminder: your answer is waiting — Board, review; \"Q4\"",
		KindAgreed:   "Agreed — Board, review; \"Q4\"",
		KindClosed:   "Closed — Board, review; \"Q4\"",
		KindNoDeal:   "No deal possible on Fee — Board, review; \"Q4\"",
	}
	for kind, subject := range subjects {
		raw, p := render(t, sample(kind))
		if p.Subject != subject {
			t.Errorf("%s: subject %q, want %q", kind, p.Subject, subject)
		}
		if got := p.Header.Get("List-Unsubscribe"); (got != "") == kind.Critical() {
			t.Errorf("%s: List-Unsubscribe %q", kind, got)
		}
		if kind != KindRequest && p.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			t.Errorf("%s: no one-click unsubscribe for an https link", kind)
		}
		if p.Text == "" || p.HTML == "" || !strings.Contains(string(raw), "multipart/alternative") {
			t.Errorf("%s: not text and HTML", kind)
		}
		if p.Header.Get("Message-Id") != "<taasky.email.42."+string(kind)+"@taasky.example>" {
			t.Errorf("%s: Message-ID %q", kind, p.Header.Get("Message-Id"))
		}
		if (len(p.Attachments) == 1) != (kind == KindAgreed) {
			t.Errorf("%s: %d attachments", kind, len(p.Attachments))
		}
		// What the other party wrote is escaped in HTML.
		if strings.Contains(p.HTML, "<script>") || strings.Contains(p.HTML, "<b>room") {
			t.Errorf("%s: unescaped HTML from the other party:\n%s", kind, p.HTML)
		}
	}
	_, p := render(t, sample(KindRequest))
	for _, want := range []string{"Your agent, Bob's agent, asks you to approve these terms in “Board, review; \"Q4\"” with Alice & Co.",
		"Meeting time: Wed 14 Oct 2026, 12:00–12:30:00.25 (Europe/Paris, UTC+02:00)", "Fee: 20.00 EUR",
		"! outside your limits: above your maximum", "Their <b>room</b> (their field): <script>x</script>", "Notes: missing",
		"No deal is possible on Fee", "https://taasky.example/c/ot_x", "The room: https://taasky.example/rooms/7",
		"Deadline: Mon 26 Oct 2026, 11:00 (Europe/Paris)"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("request text lacks %q:\n%s", want, p.Text)
		}
	}
	if strings.Contains(p.Text, "no longer in the account") {
		t.Errorf("a request to the side's own human says it was handed over:\n%s", p.Text)
	}
	// To an owner, because the member who answered left; and across from a
	// deleted account.
	m := sample(KindRequest)
	m.HandedOver, m.Them, m.ThemKey = true, "", "party.deleted_account"
	_, p = render(t, m)
	for _, want := range []string{"The member who answered for this agent is no longer in the account: as its owner, you answer for it now.",
		"with a deleted account"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("the handed-over request lacks %q:\n%s", want, p.Text)
		}
	}
}

// A title or label cannot add a header or a line.
func TestEmailHeaderInjection(t *testing.T) {
	m := sample(KindRequest)
	m.Title = "Hi\r\nBcc: eve@example.test\r\n\r\nbody"
	raw, p := render(t, m)
	if p.Header.Get("Bcc") != "" || bytes.Contains(raw, []byte("\r\nBcc:")) {
		t.Fatalf("header injected:\n%s", raw)
	}
	if strings.ContainsAny(p.Subject, "\r\n") {
		t.Fatalf("subject %q", p.Subject)
	}
}

func TestCalendar(t *testing.T) {
	m := sample(KindAgreed)
	m.Title = strings.Repeat("Très long titre, avec; des virgules ", 4)
	ics := string(Calendar(m))
	for _, want := range []string{"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n", "METHOD:PUBLISH\r\n",
		"UID:taasky-room-7-meeting_time-0@taasky.example\r\n", "DTSTAMP:20261012T100000Z\r\n",
		"DTSTART:20261014T100000Z\r\n", "DTEND:20261014T103000Z\r\n", "END:VEVENT\r\nEND:VCALENDAR\r\n"} {
		if !strings.Contains(ics, want) {
			t.Errorf(".ics lacks %q:\n%s", want, ics)
		}
	}
	// Lines are CRLF, at most 75 octets, continued with a space; TEXT is
	// escaped; the exact moments (fractional seconds) are in DESCRIPTION.
	unfolded := strings.ReplaceAll(ics, "\r\n ", "")
	for _, line := range strings.Split(strings.TrimSuffix(ics, "\r\n"), "\r\n") {
		if len(line) > 75 || strings.Contains(line, "\n") {
			t.Errorf("line of %d octets: %q", len(line), line)
		}
	}
	if !strings.Contains(unfolded, `SUMMARY:Très long titre\, avec\; des virgules`) {
		t.Errorf("summary not escaped:\n%s", unfolded)
	}
	// The description writes the range as the mail does: in the reader's
	// zone, named, exactly.
	if !strings.Contains(unfolded, `Meeting time: Wed 14 Oct 2026\, 12:00–12:30:00.25 (Europe/Paris\, UTC+02:00)`) {
		t.Errorf("description lacks the exact moments in the reader's zone:\n%s", unfolded)
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	ja := *m
	ja.Lang, ja.TimeZone = "ja", tokyo
	if got := strings.ReplaceAll(string(Calendar(&ja)), "\r\n ", ""); !strings.Contains(got, "19:00–19:30:00.25 (Asia/Tokyo") || strings.Contains(got, "T10:00:00Z～") {
		t.Errorf("a Japanese reader in Tokyo:\n%s", got)
	}
	if !strings.Contains(ics, "URL:https://taasky.example/rooms/7\r\n") || !strings.Contains(unfolded, `\nhttps://taasky.example/rooms/7`) {
		t.Errorf("a member's entry should link the room's page (it asks for a sign-in):\n%s", unfolded)
	}
	// A person's personal link opens the room to whoever holds it: their
	// entry, which calendars share, holds none.
	m.Person, m.RoomURL = true, "https://taasky.example/p/ps_secret"
	if person := strings.ReplaceAll(string(Calendar(m)), "\r\n ", ""); strings.Contains(person, "ps_secret") || strings.Contains(person, "URL:") ||
		!strings.Contains(person, "DTSTART:20261014T100000Z") {
		t.Errorf("a person's entry:\n%s", person)
	}
	m.Card.Options[0].Fields = m.Card.Options[0].Fields[1:]
	if Calendar(m) != nil {
		t.Error("an .ics for terms without a timerange")
	}
}

func TestPushPayload(t *testing.T) {
	m := sample(KindRequest)
	m.Title = strings.Repeat("x", 300)
	b := Push(m)
	var p PushPayload
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.URL != "https://taasky.example/c/ot_x" || p.Kind != KindRequest || p.Tag != "taasky-room-7" ||
		p.Title != "Bob's agent asks you to approve these terms" || len([]rune(p.Body)) > maxPushBody {
		t.Fatalf("push %+v", p)
	}
	if len(b) > 1024 {
		t.Fatalf("push payload of %d bytes", len(b))
	}
	m = sample(KindAgreed)
	if err := json.Unmarshal(Push(m), &p); err != nil || p.URL != m.RoomURL || p.Title != "Agreed" ||
		!strings.Contains(p.Body, "Meeting time: Wed 14 Oct 2026, 12:00–12:30") {
		t.Fatalf("agreed push %+v %v", p, err)
	}
	if o := OptionsFor(KindRequest); o.Urgency != "high" || o.TTL != 24*time.Hour {
		t.Fatalf("request push options %+v", o)
	}
}

func TestDefaultFrom(t *testing.T) {
	for base, want := range map[string]string{
		"https://taasky.example.com":  "Taasky <taasky@taasky.example.com>",
		"http://127.0.0.1:8080":       "Taasky <taasky@127.0.0.1>",
		"https://x.example:8443/path": "Taasky <taasky@x.example>",
	} {
		if got := DefaultFrom(base); got != want {
			t.Errorf("DefaultFrom(%q) = %q, want %q", base, got, want)
		}
	}
}

// TestVerifyLink: the agreed email's receipt points at the check page of
// this deployment, under BASE_URL's path when it has one.
func TestVerifyLink(t *testing.T) {
	for room, want := range map[string]string{
		"https://taasky.example/rooms/7":             "https://taasky.example/verify",
		"https://x.example.com/taasky/rooms/7":       "https://x.example.com/taasky/verify",
		"http://127.0.0.1:8080/base/rooms/x/rooms/9": "http://127.0.0.1:8080/base/rooms/x/verify",
	} {
		m := sample(KindAgreed)
		m.RoomURL = room
		m.Receipt = "eyJhbGciOiJFZERTQSJ9.e30.sig"
		if _, p := render(t, m); !strings.Contains(p.Text, want+".") {
			t.Errorf("room %s: the receipt's check page is not %s:\n%s", room, want, p.Text)
		}
	}
}

// TestPushNeverCutsAValue: a push too long for its body leaves fields out
// whole, never cutting one short ("Fee: EUR 1,234,567.…" read as another
// amount); whatever the title's length, each field is there as the mail
// writes it, or not at all.
func TestPushNeverCutsAValue(t *testing.T) {
	for n := 60; n <= 120; n++ {
		m := sample(KindRequest)
		m.Title = strings.Repeat("Quarterly board review ", 6)[:n]
		fee := &m.Card.Options[0].Fields[1]
		fee.Label, fee.Values = "Total fee for the whole engagement", []negotiation.Value{{Amount: decimal.RequireFromString("1234567.5"), Currency: "EUR"}}
		m.Card.Options[0].Fields = m.Card.Options[0].Fields[:2]
		var p PushPayload
		if err := json.Unmarshal(Push(m), &p); err != nil {
			t.Fatal(err)
		}
		if len([]rune(p.Body)) > maxPushBody {
			t.Fatalf("title of %d: a body of %d characters", n, len([]rune(p.Body)))
		}
		_, fields, _ := strings.Cut(p.Body, "\n")
		for _, part := range strings.Split(fields, "; ") {
			switch part {
			case "Meeting time: Wed 14 Oct 2026, 12:00–12:30:00.25 (Europe/Paris, UTC+02:00)", "Total fee for the whole engagement: EUR\u00a01,234,567.50", "…":
			default:
				t.Fatalf("title of %d: a field cut short: %q", n, part)
			}
		}
	}
}

// TestSubjectIsNotReadAsEncodedWords: a name or title in ASCII that is
// written as an RFC 2047 encoded word reaches the reader as written, not
// as what it encodes: account names are held to rules ("PayPal Security"
// must not be passed off by an account named "=?UTF-8?B?…?="), and a
// mail client decodes any encoded word of a Subject it is given raw.
func TestSubjectIsNotReadAsEncodedWords(t *testing.T) {
	for _, c := range []struct {
		kind        Kind
		them, title string
		want        string
	}{
		{KindInvite, "=?UTF-8?B?UGF5UGFsIFNlY3VyaXR5?=", "", "=?UTF-8?B?UGF5UGFsIFNlY3VyaXR5?= invites you to negotiate"},
		{KindMemberInvite, "=?utf-8?q?Caf=C3=A9?=", "", "=?utf-8?q?Caf=C3=A9?= invites you to join =?utf-8?q?Caf=C3=A9?= on Taasky"},
		{KindAgreed, "Alice", "=?UTF-8?B?UGF5UGFs?= and a long title, é, 日本語 =?x?= " + strings.Repeat("ab", 30), ""},
	} {
		m := sample(c.kind)
		m.Them, m.Agent, m.Title = c.them, c.them, c.title
		m.InviteURL = "https://taasky.example/i/x"
		want := c.want
		if want == "" {
			want = m.view().Subject
		}
		raw, p := render(t, m)
		if p.Subject != want {
			t.Errorf("%s: a mail client reads the subject as %q, want %q", c.kind, p.Subject, want)
		}
		head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
		for _, line := range strings.Split(string(head), "\r\n") {
			if len(line) > 78 {
				t.Errorf("%s: header line of %d octets: %q", c.kind, len(line), line)
			}
		}
	}
}

// TestMailOnAnIPv6BaseURL: with BASE_URL at an IPv6 address (taasky dev
// on LISTEN_ADDR [::1]:8080), the default sender and the Message-ID hold
// it as a domain literal: "taasky@::1" is no address, and every mail
// failed to render.
func TestMailOnAnIPv6BaseURL(t *testing.T) {
	from := DefaultFrom("http://[::1]:8080")
	if from != "Taasky <taasky@[::1]>" {
		t.Errorf("DefaultFrom = %q", from)
	}
	m := sample(KindAgreed)
	m.RoomURL = "http://[2001:db8::1]:8080/rooms/7"
	_, p := renderFrom(t, m, from)
	if id := p.Header.Get("Message-ID"); id != "<taasky.email.42.agreed@[2001:db8::1]>" {
		t.Errorf("Message-ID %q", id)
	}
	if a, err := mail.ParseAddress(p.Header.Get("From")); err != nil || a.Address != "taasky@[::1]" {
		t.Errorf("From %q: %v", p.Header.Get("From"), err)
	}
}

// TestCalendarEndsAfterItStarts: a range within one second (the terms
// allow fractional seconds) still ends after it starts in the .ics, which
// has none (RFC 5545 §3.8.2.2); the exact moments stay in DESCRIPTION.
func TestCalendarEndsAfterItStarts(t *testing.T) {
	m := sample(KindAgreed)
	m.Card.Options[0].Fields[0].Values = []negotiation.Value{{Start: moment("2026-10-14T10:00:00.2Z"), End: moment("2026-10-14T10:00:00.7Z")}}
	ics := string(Calendar(m))
	if !strings.Contains(ics, "DTSTART:20261014T100000Z\r\n") || !strings.Contains(ics, "DTEND:20261014T100001Z\r\n") {
		t.Errorf("a range within one second:\n%s", ics)
	}
	if !strings.Contains(strings.ReplaceAll(ics, "\r\n ", ""), "12:00:00.2–12:00:00.7 (Europe/Paris") {
		t.Errorf("the exact moments are not in DESCRIPTION:\n%s", ics)
	}
}

// TestNoDealOnOptionalFieldsMail: the no-deal notice, and a request's note,
// say that terms leaving out fields that may be left out can still agree.
func TestNoDealOnOptionalFieldsMail(t *testing.T) {
	for _, kind := range []Kind{KindNoDeal, KindRequest} {
		m := sample(kind)
		m.NoDeal = []negotiation.CardNote{{Name: "fee", Label: "Fee", Optional: true}}
		_, p := render(t, m)
		if !strings.Contains(p.Text, "Terms that leave out Fee are not held to these limits and can still be agreed.") {
			t.Errorf("%s:\n%s", kind, p.Text)
		}
		m.NoDeal[0].Optional = false
		if _, p := render(t, m); strings.Contains(p.Text, "Terms that leave out") {
			t.Errorf("%s, a required field:\n%s", kind, p.Text)
		}
	}
}
