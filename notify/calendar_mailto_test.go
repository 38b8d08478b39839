package notify

import (
	"strings"
	"testing"
)

// TestCalendarOrganizerIsAURI: the entry's ORGANIZER is a mailto URI
// (RFC 5545 §3.3.3, RFC 6068) even for a sender whose address has a
// quoted local part, which SMTP_FROM takes ("rooms desk"@…): written as
// net/mail reads it, unquoted, the URI held a space, and calendars that
// check the entry refuse it or show it from nobody. An everyday address
// is written as it is.
func TestCalendarOrganizerIsAURI(t *testing.T) {
	for from, want := range map[string]string{
		`"rooms desk"@taasky.example`:           "ORGANIZER:mailto:%22rooms%20desk%22@taasky.example\r\n",
		`Rooms <"a\"b"@taasky.example>`:         `ORGANIZER;CN="Rooms":mailto:%22a%5C%22b%22@taasky.example` + "\r\n",
		"Taasky <o'brien+rooms@taasky.example>": `ORGANIZER;CN="Taasky":mailto:o'brien+rooms@taasky.example` + "\r\n",
		"rooms@taasky.example":                  "ORGANIZER:mailto:rooms@taasky.example\r\n",
		"Équipe <équipe@taasky.example>":        `ORGANIZER;CN="Équipe":mailto:%C3%A9quipe@taasky.example` + "\r\n",
		// RFC 6068 §2: "&", ";", "=" and the gen-delims but "@" and ":"
		// are percent-encoded in an address (review: = ; [ ] were not).
		"prvs=rooms=desk@taasky.example": "ORGANIZER:mailto:prvs%3Drooms%3Ddesk@taasky.example\r\n",
		`"a;b[c]"@taasky.example`:        "ORGANIZER:mailto:%22a%3Bb%5Bc%5D%22@taasky.example\r\n",
		"a&b/c?d#e@taasky.example":       "ORGANIZER:mailto:a%26b%2Fc%3Fd%23e@taasky.example\r\n",
	} {
		m := sample(KindAgreed)
		m.Organizer = from
		if ics := string(Calendar(m)); !strings.Contains(strings.ReplaceAll(ics, "\r\n ", ""), want) {
			t.Errorf("from %s: the .ics lacks %q:\n%s", from, want, ics)
		}
	}
}
