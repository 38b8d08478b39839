package notify

import (
	"bytes"
	"embed"
	"encoding/base64"
	"fmt"
	htmltemplate "html/template"
	"net/url"
	"strings"
	texttemplate "text/template"
	"unicode/utf8"

	"github.com/wneessen/go-mail"
	"golang.org/x/net/idna"
)

//go:embed templates/*.tmpl
var templateFiles embed.FS

var (
	textEmail = texttemplate.Must(texttemplate.New("email.txt.tmpl").ParseFS(templateFiles, "templates/email.txt.tmpl"))
	htmlEmail = htmltemplate.Must(htmltemplate.New("email.html.tmpl").ParseFS(templateFiles, "templates/email.html.tmpl"))
)

// Email renders m as a multipart (text and HTML) email from from. A room
// agreed on terms that hold a timerange carries an .ics of it. Non-critical
// mail carries List-Unsubscribe; a request never does.
func Email(m *Message, from string) (*mail.Msg, error) {
	if m.To == "" {
		return nil, fmt.Errorf("email: no recipient")
	}
	v := m.view()
	var ics []byte
	if m.Kind == KindAgreed {
		withFrom := *m
		withFrom.Organizer = from // the entry is from the mail's sender
		ics = Calendar(&withFrom)
		v.Calendar = ics != nil
	}
	receiptFile := fmt.Sprintf("taasky-receipt-room-%d.jws", m.RoomID)
	if m.Kind == KindAgreed && m.Receipt != "" {
		v.Receipt = v.w.T("receipt.attached", receiptFile, m.verifyURL())
	}
	var text, html bytes.Buffer
	if err := textEmail.Execute(&text, v); err != nil {
		return nil, fmt.Errorf("email text: %w", err)
	}
	if err := htmlEmail.Execute(&html, v); err != nil {
		return nil, fmt.Errorf("email html: %w", err)
	}
	msg := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := msg.From(from); err != nil {
		return nil, fmt.Errorf("email from %q: %w", from, err)
	}
	if err := msg.To(asciiDomain(m.To)); err != nil {
		return nil, fmt.Errorf("email to: %w", err)
	}
	msg.Subject(subjectHeader(v.Subject))
	msg.SetDateWithValue(m.Now)
	msg.SetMessageIDWithValue(m.ID + "@" + mailDomain(m.host()))
	if thread := m.thread(); thread != "" {
		msg.SetGenHeader(mail.HeaderInReplyTo, thread)
		msg.SetGenHeader(mail.HeaderReferences, thread)
	}
	msg.SetGenHeader(mail.HeaderXAutoResponseSuppress, "All")
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	if v.Unsubscribe != "" {
		if u, err := url.Parse(v.Unsubscribe); err == nil && u.Scheme == "https" {
			if err := msg.SetListUnsubscribeOneClick(v.Unsubscribe); err != nil {
				return nil, err
			}
		} else {
			msg.SetListUnsubscribe(v.Unsubscribe) // http (dev): no one-click
		}
	}
	msg.SetBodyString(mail.TypeTextPlain, strings.ReplaceAll(text.String(), "\r\n", "\n"))
	msg.AddAlternativeString(mail.TypeTextHTML, html.String())
	if ics != nil {
		if err := msg.AttachReader("invite.ics", bytes.NewReader(ics),
			mail.WithFileContentType(CalendarType)); err != nil {
			return nil, fmt.Errorf("email calendar: %w", err)
		}
	}
	if v.Receipt != "" {
		if err := msg.AttachReader(receiptFile, strings.NewReader(m.Receipt),
			mail.WithFileContentType("application/jose")); err != nil {
			return nil, fmt.Errorf("email receipt: %w", err)
		}
	}
	return msg, nil
}

// thread is the message a room's mails refer to (In-Reply-To and
// References, RFC 5322 §3.6.4), "" for a mail about no room: mail clients
// that thread by them (Thunderbird, Apple Mail, Fastmail, Outlook's
// conversations) show a room's invitation, requests, reminders and its
// end as one conversation, whatever their subjects say, and two rooms of
// one title as two. No message bears that id; it names the room (its
// RoomUID, unique across databases) at the service's host, as the
// calendar's UIDs do.
func (m *Message) thread() string {
	switch m.Kind {
	case KindMemberInvite, KindWebhookDisabled, KindTest:
		return ""
	}
	room := m.RoomUID
	if room == "" {
		if m.RoomID == 0 {
			return ""
		}
		room = fmt.Sprint(m.RoomID)
	}
	return "<taasky.room." + room + "@" + mailDomain(m.host()) + ">"
}

// subjectHeader is the Subject's value. go-mail encodes only a subject with
// characters outside ASCII (RFC 2047); one in ASCII is written as it is, so
// a title or name that reads "=?UTF-8?B?…?=" would be shown by mail clients
// as whatever it encodes, not as the words Taasky checked (an account name
// "=?UTF-8?B?UGF5UGFsIFNlY3VyaXR5?=" showing as "PayPal Security"). Such a
// subject is encoded here, whole: a client decodes it back to these words.
func subjectHeader(s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	// Encoded words of at most 75 characters: 45 octets are 60 in base64,
	// and a word never ends inside a character.
	var words []string
	for s != "" {
		n := 0
		for n < len(s) {
			_, size := utf8.DecodeRuneInString(s[n:])
			if n+size > 45 {
				break
			}
			n += size
		}
		words = append(words, "=?UTF-8?B?"+base64.StdEncoding.EncodeToString([]byte(s[:n]))+"?=")
		s = s[n:]
	}
	return strings.Join(words, " ")
}

// asciiDomain writes an address's domain as its A-label (IDNA, RFC 5891:
// bob@bücher.example as bob@xn--bcher-kva.example), the same domain to
// every server: one that does not offer SMTPUTF8, as most relays do not,
// refuses a domain in UTF-8 (RFC 6531 §3.5). A local part in UTF-8 has no
// such form and is left as it is (it needs a server with SMTPUTF8).
func asciiDomain(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return addr
	}
	domain, err := idna.Lookup.ToASCII(addr[at+1:])
	if err != nil {
		return addr
	}
	return addr[:at+1] + domain
}

// DefaultFrom is the sender when none is configured: Taasky at the host of
// the service's base URL.
func DefaultFrom(baseURL string) string {
	host := "localhost"
	if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
		host = mailDomain(u.Hostname())
	}
	return "Taasky <taasky@" + host + ">"
}

// mailDomain writes a host as the right side of an address or a
// Message-ID (RFC 5322 §3.4.1, §3.6.4): a name or an IPv4 address as it
// is, an IPv6 address as a domain literal ("[2001:db8::1]"), whose colons
// a dot-atom cannot hold.
func mailDomain(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}
