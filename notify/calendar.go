package notify

import (
	"bytes"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/taasky/taasky/negotiation"
)

// CalendarType is the media type of Calendar's file, wherever it is sent:
// its method parameter and its METHOD property go together (RFC 5545
// §8.1: if one is present, the other must be too).
const CalendarType = "text/calendar; charset=utf-8; method=PUBLISH"

// Calendar is the .ics (RFC 5545) of an agreed room: one event per
// timerange value of the agreed terms, at exactly the agreed moments, in
// UTC; its description writes them as the mail does, in the reader's
// language and zone, named, exactly (seconds and their fraction when the
// terms hold some). It is nil when the terms hold no timerange. A person's entry holds
// no link: their personal link opens the room to whoever holds it, and a
// calendar entry is shared and forwarded as a mail is not (the mail that
// carries the entry holds the link; a member's link asks for a sign-in).
func Calendar(m *Message) []byte {
	if m.Card == nil || len(m.Card.Options) == 0 {
		return nil
	}
	var events []calEvent
	room := m.RoomUID
	if room == "" {
		room = fmt.Sprint(m.RoomID)
	}
	for _, f := range m.Card.Options[0].Fields {
		if f.Type != negotiation.TypeTimerange {
			continue
		}
		for i, v := range f.Values {
			events = append(events, calEvent{
				uid:   fmt.Sprintf("taasky-room-%s-%s-%d@%s", room, f.Name, i, m.host()),
				start: v.Start, end: v.End, label: m.words().Label(f.Label, f.Shorthand), // slots: Taasky's name, translated
			})
		}
	}
	if len(events) == 0 {
		return nil
	}
	var b bytes.Buffer
	line := func(s string) { b.WriteString(fold(s)) }
	line("BEGIN:VCALENDAR")
	line("VERSION:2.0")
	line("PRODID:-//Taasky//Taasky//EN")
	line("CALSCALE:GREGORIAN")
	line("METHOD:PUBLISH")
	w := m.words()
	summary := m.subjectOf(w)
	organizer := m.organizer()
	for _, e := range events {
		line("BEGIN:VEVENT")
		line("UID:" + e.uid)
		line("DTSTAMP:" + icsTime(m.Now))
		line(organizer)
		line("DTSTART:" + icsTime(e.start))
		line("DTEND:" + icsTime(icsEnd(e.start, e.end)))
		s := summary
		if len(events) > 1 {
			s += " (" + e.label + ")"
		}
		line("SUMMARY:" + icsText(s))
		desc := w.T("ics.agreed")
		if m.them(w) != "" {
			desc = w.T("ics.agreed_with", m.them(w))
		}
		writeRange := w.Range
		if m.ZoneGuessed {
			writeRange = w.RangeWithUTC
		}
		desc += "\n" + w.T("ics.range", e.label, writeRange(e.start, e.end, m.loc()))
		if link := m.RoomURL; link != "" && !m.Person {
			desc += "\n" + link
			line("DESCRIPTION:" + icsText(desc))
			line("URL:" + link)
		} else {
			line("DESCRIPTION:" + icsText(desc))
		}
		line("STATUS:CONFIRMED")
		line("TRANSP:OPAQUE")
		line("END:VEVENT")
	}
	line("END:VCALENDAR")
	return b.Bytes()
}

// organizer is the entry's ORGANIZER property: Organizer's address as a
// mailto URI, its name (if any) as CN. A PUBLISH without one is not a
// published event (RFC 5546 §3.2.1: "the Organizer MUST be present");
// calendars that check refuse it or show it as from nobody.
func (m *Message) organizer() string {
	a, err := mail.ParseAddress(m.Organizer)
	if err != nil { // none given (DefaultFrom's), or one SMTP_FROM's check refuses
		a = &mail.Address{Name: "Taasky", Address: "taasky@" + mailDomain(m.host())}
	}
	if a.Name == "" {
		return "ORGANIZER:" + mailtoURI(a.Address)
	}
	// A quoted parameter value holds anything but a control character and
	// DQUOTE (RFC 5545 §3.1), which RFC 6868 writes ^'.
	name := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, a.Name)
	name = strings.NewReplacer("^", "^^", `"`, "^'").Replace(name)
	return `ORGANIZER;CN="` + name + `":` + mailtoURI(a.Address)
}

// mailtoURI is the mailto URI of an address (RFC 6068 §2), as net/mail
// reads it (a quoted local part unquoted: "rooms desk"@example.com as
// rooms desk@example.com): its local part quoted again when it is no
// dot-atom, and every octet a URI may not hold (a space, a quote, a
// backslash, UTF-8) or RFC 6068 reserves in one (& ; = / ? # [ ])
// percent-encoded. An everyday address is written as it is.
func mailtoURI(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return "mailto:" + addr
	}
	local, domain := addr[:at], addr[at:]
	if !dotAtom(local) {
		local = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(local) + `"`
	}
	var b strings.Builder
	b.WriteString("mailto:")
	// A domain literal keeps its brackets (RFC 6068's domain).
	for _, part := range []struct{ s, raw string }{{local, "-._~!$'()*+,:@"}, {domain, "-._~!$'()*+,:@[]"}} {
		for i := 0; i < len(part.s); i++ {
			if c := part.s[i]; c < utf8.RuneSelf && (isAlnum(c) || strings.IndexByte(part.raw, c) >= 0) {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
	}
	return b.String()
}

// dotAtom reports whether s is a dot-atom (RFC 5322 §3.2.3), an address's
// local part that needs no quotes (UTF-8 allowed, as RFC 6532 does).
func dotAtom(s string) bool {
	if s == "" || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf && !isAlnum(c) && strings.IndexByte("!#$%&'*+-/=?^_`{|}~.", c) < 0 {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

type calEvent struct {
	uid        string
	start, end time.Time
	label      string
}

// icsTime is a UTC DATE-TIME (form #2, with Z). RFC 5545 has no fractional
// seconds: terms that hold some keep them in DESCRIPTION, written exactly.
func icsTime(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// icsEnd is the DTEND of a range: its end in whole seconds, unless that is
// not after its start in whole seconds (a range within one second, which
// the terms allow: 10:00:00.2 to 10:00:00.7), where it is the next second:
// RFC 5545 §3.8.2.2 asks for a DTEND later than DTSTART.
func icsEnd(start, end time.Time) time.Time {
	s, e := start.Truncate(time.Second), end.Truncate(time.Second)
	if !e.After(s) {
		return s.Add(time.Second)
	}
	return e
}

// icsText escapes a TEXT value (RFC 5545 §3.3.11).
func icsText(s string) string {
	r := strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)
	return r.Replace(s)
}

// fold ends a content line with CRLF, folded at 75 octets without cutting a
// UTF-8 sequence (RFC 5545 §3.1).
func fold(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		size := utf8.RuneLen(r)
		if n+size > 75 {
			b.WriteString("\r\n ")
			n = 1
		}
		b.WriteRune(r)
		n += size
	}
	b.WriteString("\r\n")
	return b.String()
}
