package notify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"golang.org/x/net/html"

	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// The fuzz targets here compose every message Taasky sends from words
// people wrote (a room's title, names, labels, values, amounts, moments,
// zones, languages, the installation's BASE_URL), each held first to the
// rule the service holds it to, and check what reaches a mail client, a
// calendar or a browser: one line per header, the words as written, no
// markup of theirs, lines a server relays, a push a push service takes.
//
//	go test ./notify -run XXX -fuzz FuzzEmail -fuzztime 3m -parallel 1
//	go test ./notify -run XXX -fuzz FuzzPush -fuzztime 3m -parallel 1
//	go test ./notify -run XXX -fuzz FuzzSignWebhook -fuzztime 1m -parallel 1

var fuzzKinds = []Kind{KindRequest, KindReminder, KindAgreed, KindClosed, KindNoDeal, KindTurn,
	KindInvite, KindMemberInvite, KindWebhookDisabled, KindTest}

var fuzzLangs = []string{"en", "fr", "de", "es", "ja"}

// fuzzInput is what people control in a message, as the fuzzer gives it.
type fuzzInput struct {
	kind, lang          uint8
	person, guessed     bool
	title, them, agent  string
	label, text, choice string
	amount, currency    string
	zone, base, to      string
	from                string // SMTP_FROM
	start, length       int64
}

// addSeeds gives f the seeds both message targets start from.
func addSeeds(f *testing.F) {
	seeds := []fuzzInput{
		{kind: 0, title: "Board, review; \"Q4\"", them: "Alice & Co", agent: "Bob's agent", label: "Their <b>room</b>",
			text: "<script>x</script>\n\nno   refunds", choice: "gold", amount: "1234.5", currency: "EUR", zone: "Europe/Paris",
			base: "https://taasky.example", start: 1791972000, length: 1800},
		{kind: 2, lang: 1, title: "Réunion « été » — 東京", them: "Zoë Müller", agent: "Agent",
			label: "Créneau", text: "a\\b;c,d\r\ne", choice: "argent", amount: "0.001", currency: "BHD", zone: "America/St_Johns",
			base: "https://taasky.example/sub/path", start: 1793500000, length: 90061},
		{kind: 2, lang: 4, guessed: true, title: strings.Repeat("日本語のタイトル", 15), them: strings.Repeat("名前", 40),
			label: strings.Repeat("ラベル", 26), text: strings.Repeat("長い値", 700), choice: strings.Repeat("é", 40),
			amount: "99999999999999.99", currency: "JPY", zone: "Asia/Tokyo", base: "http://[2001:db8::1]:8080", start: 4102444800, length: 1},
		{kind: 6, lang: 2, title: "=?UTF-8?B?UGF5UGFsIFNlY3VyaXR5?=", them: "=?utf-8?q?Eve?=", text: strings.Repeat("x", 3000),
			zone: "UTC", base: "https://bücher.example"},
		{kind: 7, lang: 3, them: "Équipe «Ventes»", agent: "José <jose@example.test>", base: "https://taasky.example",
			to: "zoë@bücher.example", from: "Équipe Taasky <rooms@taasky.example>"},
		{kind: 2, title: "t", base: "https://taasky.example", from: `"Ta\"asky; Rooms, Inc." <rooms@taasky.example>`, start: 100, length: 100},
		{kind: 2, title: "t", base: "https://taasky.example", from: "=?utf-8?q?Caf=C3=A9?= <cafe@example.test>", start: 100, length: 100},
		{kind: 2, title: "t", base: "https://taasky.example", from: `"rooms desk"@taasky.example`, start: 100, length: 100},
		{kind: 6, them: "Eve", base: "https://taasky.example", to: "o'brien+tag@xn--bcher-kva.example"},
		{kind: 8, them: "Acme\u2028Corp", text: "dial tcp: i/o timeout\r\nX-Injected: 1", base: "https://taasky.example"},
		{kind: 5, person: true, title: "  leading and trailing  ", them: "A  B", text: "\t tab", zone: "Australia/Lord_Howe",
			base: "https://taasky.example", start: 1775923200, length: 3600},
		{kind: 1, lang: 0, title: "<a href=\"https://evil.example\">click</a> & https://evil.example/x?y=1", agent: "Mallory",
			label: "https://evil.example", text: "https://evil.example/<b>", base: "https://taasky.example"},
		{kind: 0, lang: 4, title: "会議", choice: "会議室\u3000A", base: "https://taasky.example"},
		{kind: 1, lang: 1, title: "Prix", choice: "10\u202f000\u00a0€ \"net\" \\ 👩\u200d💻\ue000", base: "https://taasky.example"},
		{kind: 0, title: strings.Repeat("<", 120), them: strings.Repeat("&", 80), agent: strings.Repeat(">", 80),
			label: strings.Repeat("<", 80), text: strings.Repeat("<", 500), choice: strings.Repeat("&", 40),
			base: "https://" + strings.Repeat("x", 60) + ".example", start: 1, length: 1},
		{kind: 3, title: strings.Repeat("a", 120), them: strings.Repeat("b", 80), base: "https://taasky.example"},
		{kind: 4, title: "x", label: "Fee", base: "https://taasky.example"},
	}
	for _, s := range seeds {
		if s.to == "" {
			s.to = "bob@example.test"
		}
		f.Add(s.kind, s.lang, s.person, s.guessed, s.title, s.them, s.agent, s.label, s.text, s.choice,
			s.amount, s.currency, s.zone, s.base, s.to, s.from, s.start, s.length)
	}
}

// readable holds a name or a label to the rule the service holds it to
// (one line, 1 to n characters, nothing deceptive), "" when it breaks it.
func readable(s string, n int) string {
	if utf8.RuneCountInString(s) > n || strings.TrimSpace(s) == "" || !negotiation.ReadableLine(s) || negotiation.Deceptive(s) != "" {
		return ""
	}
	return s
}

// textValue holds a string value to the terms' rule: valid UTF-8, no
// control character but tab and line breaks, no direction override, at
// most MaxStringLen characters (the longer cut to them).
func textValue(s string) string {
	if !utf8.ValidString(s) || s == "" {
		return ""
	}
	if r := []rune(s); len(r) > negotiation.MaxStringLen {
		s = string(r[:negotiation.MaxStringLen])
	}
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20, r >= 0x7F && r <= 0x9F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			return ""
		}
	}
	return s
}

// address holds an address to the rule the service holds an invited
// address to (a bare address, at most 254 octets, kept lowercased),
// bob@example.test when it breaks it.
func address(s string) string {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || len(s) > 254 || !strings.Contains(s, "@") {
		return "bob@example.test"
	}
	return strings.ToLower(s)
}

// message builds the message in builds a message from fuzzed input, each
// word held to its rule first, as the service fills it in.
func (in fuzzInput) message() *Message {
	kind := fuzzKinds[int(in.kind)%len(fuzzKinds)]
	base, err := config.BaseURL(in.base)
	if err != nil {
		base = "https://taasky.example"
	}
	loc, err := time.LoadLocation(in.zone)
	if err != nil || in.zone == "" || in.zone == "Local" {
		loc = time.UTC
	}
	title := in.title
	if negotiation.CheckTitle(title) != nil {
		title = ""
	}
	label := readable(in.label, negotiation.MaxLabel)
	if label == "" {
		label = "Note"
	}
	choice := readable(in.choice, negotiation.MaxEnumValue)
	if choice == "" {
		choice = "gold"
	}
	text := textValue(in.text)
	start := time.Unix(946684800+in.start%(4102444800-946684800), 0).UTC()
	if in.start < 0 {
		start = time.Unix(946684800, 0).UTC()
	}
	length := in.length % (400 * 24 * 3600)
	if length <= 0 {
		length = 1800
	}
	end := start.Add(time.Duration(length) * time.Second)

	fields := []negotiation.CardField{
		{Name: "slot", Label: label, Type: negotiation.TypeTimerange, Values: []negotiation.Value{{Start: start, End: end}}},
		{Name: "choice", Label: "Tier", Type: negotiation.TypeEnum, Values: []negotiation.Value{{Text: choice}}},
	}
	if text != "" {
		fields = append(fields, negotiation.CardField{Name: "note", Label: label + " (2)", Type: negotiation.TypeString,
			Theirs: true, Values: []negotiation.Value{{Text: text}, {Text: text + " again"}}})
	}
	if amount, err := decimal.NewFromString(in.amount); err == nil && amount.Sign() >= 0 && amount.Exponent() > -20 && len(in.amount) <= 40 {
		if _, ok := negotiation.MinorDigits(in.currency); ok {
			fields = append(fields, negotiation.CardField{Name: "fee", Label: "Fee", Type: negotiation.TypeMoney,
				Values: []negotiation.Value{{Amount: amount, Currency: in.currency}}, Outside: []negotiation.Bound{negotiation.BoundMax}})
		}
	}
	for i := range fields {
		f := negotiation.Field{Name: fields[i].Name, Type: fields[i].Type, Label: fields[i].Label}
		fields[i].Text = negotiation.FormatValues(f, fields[i].Values, loc)
	}
	m := &Message{
		Kind: kind, ID: "taasky.email.42." + string(kind), To: address(in.to), TimeZone: loc, ZoneGuessed: in.guessed,
		Lang: fuzzLangs[int(in.lang)%len(fuzzLangs)], Now: moment("2026-10-12T10:00:00Z"),
		RoomID: 7, RoomUID: "r_0123456789", RoomURL: base + "/rooms/7", Title: title,
		Agent: readable(in.agent, 80), Them: readable(in.them, 80), Person: in.person,
		Verdict: negotiation.VerdictApprove, OneTapURL: base + "/c/ot_x", InviteURL: base + "/i/inv_x",
		Deadline: moment("2026-10-26T10:00:00Z"), ExpiresAt: moment("2026-10-19T10:00:00Z"),
		ClosedReason: negotiation.ClosedRejected, Role: "admin",
		Endpoint: "https://hooks.example/taasky", Detail: text,
		NoDeal:         []negotiation.CardNote{{Name: "slot", Label: label}},
		UnsubscribeURL: base + "/unsubscribe/un_x", SettingsURL: base + "/settings",
		Card: &negotiation.Card{Viewer: negotiation.SideB, TabledBy: negotiation.SideA, Options: []negotiation.CardOption{
			{SubjectHash: "sha256:aa", Fields: fields}}},
	}
	if m.Person {
		m.RoomURL = base + "/p/pt_x"
	}
	return m
}

// FuzzEmail composes every kind of mail in every language from fuzzed
// words and checks what a mail client reads:
//   - every header is one line of ASCII, every line of the message at most
//     998 octets after its transfer encoding (RFC 5322 §2.1.1, §2.2);
//   - the Subject decodes (net/mail, mime.WordDecoder) to exactly the
//     subject Taasky wrote, the title as written in it;
//   - the text part holds the title and the words of each value; the HTML
//     part holds them as text, with no element and no link but the
//     template's own;
//   - an agreed room's .ics is content lines of at most 75 octets, folded
//     between characters, whose SUMMARY and times read back as written;
//   - its receipt is attached as signed and verifies.
func FuzzEmail(f *testing.F) {
	addSeeds(f)
	keys, err := receipt.NewKeyring("https://taasky.example", 1, func(int) []byte { return []byte("fuzz secret key, 32 bytes long!!") })
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, kind, lang uint8, person, guessed bool, title, them, agent, label, text, choice,
		amount, currency, zone, base, to, from string, start, length int64) {
		in := fuzzInput{kind, lang, person, guessed, title, them, agent, label, text, choice, amount, currency, zone, base, to, from, start, length}
		m := in.message()
		if m.Kind == KindAgreed {
			signed, err := keys.Sign(agreedReceipt(m))
			if err != nil {
				t.Fatal(err)
			}
			m.Receipt = signed
		}
		checkEmail(t, m, in.mailFrom(m), keys)
	})
}

// agreedReceipt is the receipt of m's agreed room: its title, the other
// side's account, the terms with m's values.
func agreedReceipt(m *Message) *receipt.Receipt {
	terms := map[string]any{}
	for _, f := range m.Card.Options[0].Fields {
		terms[f.Name] = f.Text
	}
	canonical, _ := json.Marshal(terms)
	at := m.Now.Add(-time.Minute)
	schema := json.RawMessage(`{"slot":{"label":"Slot","type":"timerange"}}`)
	return &receipt.Receipt{IssuedAt: m.Now, Room: receipt.Room{ID: m.RoomID, Title: m.Title, AgreedAt: at},
		Parties: receipt.Parties{
			A: receipt.Party{Account: "Acme", Schema: schema,
				Confirmation: receipt.Confirmation{By: "Ada", Channel: receipt.ChannelDashboard, Verdict: "approve", At: at}},
			B: receipt.Party{Account: m.Them, Schema: schema,
				Confirmation: receipt.Confirmation{By: "Grace", Channel: receipt.ChannelEmail, Verdict: "approve", At: at}}},
		Terms: canonical, SubjectHash: "sha256:" + strings.Repeat("ab", 32),
		Log: receipt.Log{Head: "sha256:" + strings.Repeat("cd", 32), Events: 7}}
}

// mailFrom is the From an installation sends with: SMTP_FROM when its
// rule takes it, else DefaultFrom of the base URL.
func (in fuzzInput) mailFrom(m *Message) string {
	var c config.Config
	if c.LoadMail(func(name string) string {
		if name == "SMTP_FROM" {
			return in.from
		}
		return ""
	}) != nil {
		c = config.Config{}
	}
	return c.MailFrom(DefaultFrom(m.RoomURL))
}

func checkEmail(t *testing.T, m *Message, from string, keys *receipt.Keyring) {
	t.Helper()
	msg, err := Email(m, from)
	if err != nil {
		t.Fatalf("%s from %q: %v", m.Kind, from, err)
	}
	sender, err := mail.ParseAddress(from)
	if err != nil {
		t.Fatalf("From %q: %v", from, err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	checkLines(t, raw)

	parsed, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("net/mail: %v\n%s", err, raw)
	}
	v := m.view()
	// Unfolded as RFC 5322 §2.2.3 says, removing each CRLF only (net/mail
	// also folds the white space around it into one space).
	subject, err := new(mime.WordDecoder).DecodeHeader(rawHeader(raw, "Subject"))
	if err != nil || subject != v.Subject {
		t.Errorf("%s: Subject reads %q (%v), written %q\n%s", m.Kind, subject, err, v.Subject, headerOf(raw))
	}
	if to, err := parsed.Header.AddressList("To"); err != nil || len(to) != 1 || to[0].Address != asciiDomain(m.To) {
		t.Errorf("To: %v %v, written %q\n%s", to, err, m.To, headerOf(raw))
	}
	if got, err := msg.GetSender(false); err != nil || got != (&mail.Address{Address: sender.Address}).String() {
		t.Errorf("MAIL FROM %q (%v), sent from %q", got, err, from)
	}
	if rcpts, err := msg.GetRecipients(); err != nil || len(rcpts) != 1 || rcpts[0] != "<"+asciiDomain(m.To)+">" {
		t.Errorf("RCPT TO: %v %v, written %q", rcpts, err, m.To)
	}
	if got, err := parsed.Header.AddressList("From"); err != nil || len(got) != 1 || *got[0] != *sender {
		t.Errorf("From reads %v (%v), written %q\n%s", got, err, from, headerOf(raw))
	}

	p, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	titled := m.Title != "" && m.Kind != KindTest && m.Kind != KindWebhookDisabled && m.Kind != KindMemberInvite
	if titled && !strings.Contains(p.Text, oneLine(m.Title)) {
		t.Errorf("%s: the text part lacks the title %q:\n%s", m.Kind, m.Title, p.Text)
	}
	if m.Kind == KindRequest || m.Kind == KindReminder || m.Kind == KindAgreed || m.Kind == KindTurn || m.Kind == KindInvite {
		for _, f := range m.Card.Options[0].Fields {
			for _, it := range m.words().Items(f, m.loc()) {
				for _, line := range strings.FieldsFunc(it, isBreak) {
					if !strings.Contains(p.Text, line) {
						t.Errorf("%s: the text part lacks %q of %s:\n%s", m.Kind, line, f.Name, p.Text)
					}
				}
			}
		}
	}
	checkHTML(t, m, v, p.HTML)
	checkAttachments(t, m, p, sender, keys)
}

func isBreak(r rune) bool { return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' }

// checkLines: CRLF line ends only, lines of at most 998 octets, a header
// section of one-line ASCII headers.
func checkLines(t *testing.T, raw []byte) {
	t.Helper()
	inHeader := true
	for i, line := range strings.Split(strings.TrimSuffix(string(raw), "\r\n"), "\r\n") {
		if strings.ContainsAny(line, "\r\n") {
			t.Fatalf("line %d holds a bare CR or LF: %q", i+1, line)
		}
		if len(line) > 998 {
			t.Fatalf("line %d is %d octets, more than 998 (RFC 5322 §2.1.1): %.120q…", i+1, len(line), line)
		}
		if inHeader {
			if line == "" {
				inHeader = false
				continue
			}
			for _, c := range []byte(line) {
				if c >= 0x80 && strings.HasPrefix(line, "To: ") && utf8.ValidString(line) {
					continue // a local part in UTF-8, for a server with SMTPUTF8 (RFC 6532)
				}
				if (c < 0x20 && c != '\t') || c >= 0x7f {
					t.Fatalf("header line %d holds %#x: %q", i+1, c, line)
				}
			}
			if strings.Contains(line, "?=") && len(line) > 76 {
				t.Fatalf("header line %d holds an encoded word and is %d octets, more than 76 (RFC 2047 §2): %q", i+1, len(line), line)
			}
			if i > 0 && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") && !strings.Contains(line, ":") {
				t.Fatalf("header line %d is neither a header nor its continuation: %q", i+1, line)
			}
		}
	}
}

// rawHeader is the value of the header name in raw, unfolded.
func rawHeader(raw []byte, name string) string {
	var value string
	found := false
	for _, line := range strings.Split(headerOf(raw), "\r\n") {
		switch {
		case found && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")):
			value += line
		case found:
			return strings.TrimPrefix(value, " ")
		case strings.HasPrefix(line, name+":"):
			value, found = strings.TrimPrefix(line, name+":"), true
		}
	}
	return strings.TrimPrefix(value, " ")
}

func headerOf(raw []byte) string {
	h, _, _ := strings.Cut(string(raw), "\r\n\r\n")
	return h
}

// htmlElements are the elements the template writes: no other may come.
var htmlElements = map[string]bool{"html": true, "head": true, "meta": true, "title": true, "body": true, "div": true,
	"h1": true, "p": true, "table": true, "tbody": true, "tr": true, "td": true, "span": true, "em": true, "ul": true,
	"li": true, "a": true, "br": true}

func checkHTML(t *testing.T, m *Message, v view, doc string) {
	t.Helper()
	// A link as html/template writes it: a character a URL should not hold
	// bare (a BASE_URL host's ", which browsers take) percent-encoded.
	links := map[string]bool{}
	for _, link := range []string{v.ActionURL, v.RoomURL, v.Unsubscribe, v.Settings} {
		links[unescapeURL(link)] = true
	}
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			if !htmlElements[n.Data] {
				t.Errorf("%s: an element <%s> the template has not:\n%s", m.Kind, n.Data, doc)
			}
			for _, a := range n.Attr {
				switch {
				case a.Key == "href" && !links[unescapeURL(a.Val)]:
					t.Errorf("%s: a link to %q, not the message's", m.Kind, a.Val)
				case strings.HasPrefix(a.Key, "on") || a.Key == "src":
					t.Errorf("%s: an attribute %s=%q", m.Kind, a.Key, a.Val)
				}
			}
		case html.TextNode:
			text.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	if !strings.Contains(text.String(), v.Subject) {
		t.Errorf("%s: the HTML's title is not the subject %q", m.Kind, v.Subject)
	}
	titled := m.Title != "" && m.Kind != KindTest && m.Kind != KindWebhookDisabled && m.Kind != KindMemberInvite
	if titled && !strings.Contains(text.String(), oneLine(m.Title)) {
		t.Errorf("%s: the HTML part's text lacks the title %q", m.Kind, m.Title)
	}
	// Each value whole, as written: its cell keeps line breaks and spaces
	// (an HTML parser reads CRLF and CR as LF).
	if len(v.Options) > 0 {
		newlines := strings.NewReplacer("\r\n", "\n", "\r", "\n")
		for _, f := range m.Card.Options[0].Fields {
			for _, it := range m.words().Items(f, m.loc()) {
				if !strings.Contains(text.String(), newlines.Replace(it)) {
					t.Errorf("%s: the HTML part's text lacks the value %q of %s", m.Kind, it, f.Name)
				}
			}
		}
	}
}

func unescapeURL(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

func checkAttachments(t *testing.T, m *Message, p *Parsed, sender *mail.Address, keys *receipt.Keyring) {
	t.Helper()
	if m.Kind != KindAgreed {
		if len(p.Attachments) != 0 {
			t.Errorf("%s: %d attachments", m.Kind, len(p.Attachments))
		}
		return
	}
	var ics, jws []byte
	for _, a := range p.Attachments {
		switch {
		case strings.HasPrefix(a.ContentType, "text/calendar"):
			ics = a.Data
		case strings.HasPrefix(a.ContentType, "application/jose"):
			jws = a.Data
		}
	}
	if string(jws) != m.Receipt {
		t.Errorf("the receipt attached is %q, signed %q", jws, m.Receipt)
	} else if r, err := keys.Verify(string(jws)); err != nil {
		t.Errorf("the receipt attached does not verify: %v", err)
	} else if want := agreedReceipt(m); r.Room.Title != m.Title || r.Parties.B.Account != m.Them || !bytes.Equal(r.Terms, want.Terms) {
		t.Errorf("the receipt attached says %+v, agreed %+v", r, want)
	}
	if ics == nil {
		t.Fatalf("an agreed room with a timerange has no .ics")
	}
	checkCalendar(t, m, ics)
	checkOrganizer(t, ics, sender)
}

// checkOrganizer: the entry is from the mail's sender, its name (if any)
// a quoted CN (RFC 5545 §3.2.19, with RFC 6868's ^ escapes), its address
// a mailto URI.
func checkOrganizer(t *testing.T, ics []byte, sender *mail.Address) {
	t.Helper()
	var line string
	for _, l := range strings.Split(strings.ReplaceAll(string(ics), "\r\n ", ""), "\r\n") {
		if strings.HasPrefix(l, "ORGANIZER") {
			line = l
			break
		}
	}
	name, rest := "", strings.TrimPrefix(line, "ORGANIZER")
	if strings.HasPrefix(rest, `;CN="`) {
		end := strings.IndexByte(rest[len(`;CN="`):], '"')
		if end < 0 {
			t.Fatalf("ORGANIZER's CN is not closed: %q", line)
		}
		quoted := rest[len(`;CN="`) : len(`;CN="`)+end]
		name = strings.NewReplacer("^'", `"`, "^n", "\n", "^^", "^").Replace(quoted)
		rest = rest[len(`;CN="`)+end+1:]
	}
	want := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, sender.Name)
	uri, isMailto := strings.CutPrefix(rest, ":mailto:")
	if strings.ContainsFunc(uri, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"<>\^`+"`{|}", r) }) {
		t.Errorf("ORGANIZER %q: no URI (RFC 3986)", line)
	}
	addr, err := url.PathUnescape(uri)
	if err == nil {
		var a *mail.Address
		if a, err = mail.ParseAddress(addr); err == nil {
			addr = a.Address
		}
	}
	if name != want || !isMailto || err != nil || addr != sender.Address {
		t.Errorf("ORGANIZER %q reads as %q <%s> (%v), sent from %q <%s>", line, name, addr, err, sender.Name, sender.Address)
	}
}

// checkCalendar checks RFC 5545's content lines (§3.1) and reads back
// SUMMARY, DTSTART and DESCRIPTION.
func checkCalendar(t *testing.T, m *Message, ics []byte) {
	t.Helper()
	if !bytes.HasSuffix(ics, []byte("\r\n")) {
		t.Fatalf(".ics does not end with CRLF")
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(ics), "\r\n"), "\r\n") {
		if len(line) > 75 {
			t.Errorf(".ics line of %d octets: %q", len(line), line)
		}
		if !utf8.ValidString(line) {
			t.Errorf(".ics line cut inside a character: %q", line)
		}
		if strings.ContainsFunc(line, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) {
			t.Errorf(".ics line holds a control character: %q", line)
		}
	}
	props := map[string]string{}
	for _, line := range strings.Split(strings.ReplaceAll(strings.TrimSuffix(string(ics), "\r\n"), "\r\n ", ""), "\r\n") {
		name, value, _ := strings.Cut(line, ":")
		if _, seen := props[name]; !seen {
			props[name] = value
		}
	}
	w := m.words()
	if got, want := icsUnescape(t, props["SUMMARY"]), m.subjectOf(w); got != want {
		t.Errorf("SUMMARY reads %q, written %q", got, want)
	}
	slot := m.Card.Options[0].Fields[0].Values[0]
	if props["DTSTART"] != slot.Start.UTC().Format("20060102T150405Z") {
		t.Errorf("DTSTART %q, agreed %s", props["DTSTART"], slot.Start)
	}
	desc := icsUnescape(t, props["DESCRIPTION"])
	if them := m.them(w); them != "" && !strings.Contains(desc, them) {
		t.Errorf("DESCRIPTION %q lacks %q", desc, them)
	}
	if label := m.Card.Options[0].Fields[0].Label; !strings.Contains(desc, label) {
		t.Errorf("DESCRIPTION %q lacks the label %q", desc, label)
	}
}

// icsUnescape reads a TEXT value (RFC 5545 §3.3.11): a backslash only
// before \, ;, , or n; a ; or , never bare.
func icsUnescape(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case '\\', ';', ',':
				b.WriteByte(s[i])
			case 'n', 'N':
				b.WriteByte('\n')
			default:
				t.Errorf("TEXT %q: \\%c is no escape", s, s[i])
			}
		case c == '\\', c == ';', c == ',':
			t.Errorf("TEXT %q: a bare %c", s, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// maxPushPayload is the most a push's payload may be: a record of 4096
// octets (RFC 8188 as RFC 8291 uses it) less its header (86), the AEAD
// tag (16) and the padding delimiter (1): webpush-go refuses more.
const maxPushPayload = 4096 - 86 - 16 - 1

// FuzzPush renders the push of every kind in every language from fuzzed
// words: valid JSON of the payload's own keys, within what a push service
// takes, a title and a body within their lengths, the body's one line of
// fields under its one line of subject, and nothing the push must not
// hold (the receipt, the recipient's address, the unsubscribe link).
func FuzzPush(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, kind, lang uint8, person, guessed bool, title, them, agent, label, text, choice,
		amount, currency, zone, base, to, from string, start, length int64) {
		in := fuzzInput{kind, lang, person, guessed, title, them, agent, label, text, choice, amount, currency, zone, base, to, from, start, length}
		m := in.message()
		m.Receipt = "eyJhbGciOiJFZERTQSJ9.e30.c2ln"
		b := Push(m)
		if len(b) > maxPushPayload {
			t.Errorf("%s: a payload of %d octets, more than %d", m.Kind, len(b), maxPushPayload)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(b, &keys); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, b)
		}
		for k := range keys {
			switch k {
			case "title", "body", "url", "tag", "kind", "action":
			default:
				t.Errorf("a key %q", k)
			}
		}
		var p PushPayload
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(p.Title); n > 120 || p.Title == "" || strings.ContainsFunc(p.Title, isBreak) {
			t.Errorf("%s: title %q", m.Kind, p.Title)
		}
		if n := utf8.RuneCountInString(p.Body); n > maxPushBody || strings.Count(p.Body, "\n") > 1 || strings.ContainsRune(p.Body, '\r') {
			t.Errorf("%s: body of %d characters: %q", m.Kind, utf8.RuneCountInString(p.Body), p.Body)
		}
		// A value a party wrote reads as written, quoted: only its quotes
		// and backslashes escaped, and what nobody sees; unless the body
		// had no room for it ("…").
		if m.Kind == KindRequest || m.Kind == KindReminder {
			choice := m.Card.Options[0].Fields[1].Values[0].Text
			var q strings.Builder
			for _, r := range oneLine(choice) {
				switch {
				case r == '"' || r == '\\':
					q.WriteString(`\` + string(r))
				case unicode.IsGraphic(r) || r == '\u200d':
					q.WriteRune(r)
				case r > 0xffff:
					fmt.Fprintf(&q, `\U%08x`, r)
				default:
					fmt.Fprintf(&q, `\u%04x`, r)
				}
			}
			if want := m.words().T("form.at", "Tier", `"`+q.String()+`"`); !strings.Contains(p.Body, want) && !strings.Contains(p.Body, "…") {
				t.Errorf("%s: the push's body %q lacks %q", m.Kind, p.Body, want)
			}
		}
		for _, secret := range []string{m.Receipt, m.To, m.UnsubscribeURL} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s: the push holds %q", m.Kind, secret)
			}
		}
		if !utf8.Valid(b) {
			t.Errorf("not UTF-8: %q", b)
		}
	})
}
