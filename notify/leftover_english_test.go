package notify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestNoEnglishLeftInMailAndPush: every kind of mail and push, in each of
// its states that changes its words, says nothing in German, French,
// Spanish or Japanese that its English render says too, but for the data
// (the room's title, names, addresses, a party's labels and values: what
// a party wrote is shown as written) and the few words that are the same
// in that language (leftoverAllowed, each with its reason); and writes
// its moments and amounts the reader's way.
func TestNoEnglishLeftInMailAndPush(t *testing.T) {
	rendered, findings := 0, 0
	for _, m := range everyMessage() {
		name := string(m.Kind) + "/" + m.ID
		m.Lang = "en"
		english := readsOfMessage(t, m)
		if m.Kind == KindRequest && !slices.ContainsFunc(english, notifytest.EnglishDates.MatchString) {
			t.Fatalf("%s: the check of moments finds none in English: it checks nothing", name)
		}
		for _, lang := range []string{"de", "fr", "es", "ja"} {
			m.Lang = lang
			got := readsOfMessage(t, m)
			rendered++
			for _, l := range notifytest.Leftovers(english, got, messageData(m), leftoverAllowed[lang]) {
				findings++
				t.Errorf("%s in %s says in English: %q", name, lang, l)
			}
			for _, p := range got {
				if notifytest.EnglishDates.MatchString(p) || strings.Contains(p, "1,500.00") && lang != "ja" {
					findings++
					t.Errorf("%s in %s writes a moment or an amount the English way: %q", name, lang, p)
				}
			}
		}
	}
	t.Logf("%d messages × languages rendered, %d findings", rendered, findings)
}

// leftoverAllowed are the words a language writes as English does, each
// with why.
var leftoverAllowed = map[string]map[string]string{
	"de": {},
	"fr": {"2 options": "French counts options with the English word (card.options)"},
	"es": {},
	"ja": {},
}

// readsOfMessage is what a reader reads of m: the mail's subject, its text
// part's lines, its HTML part's text and attributes, its calendar entry's
// summary and description, and the push's title, body and action.
func readsOfMessage(t *testing.T, m *Message) []string {
	t.Helper()
	_, p := render(t, m)
	out := append([]string{p.Subject}, notifytest.Lines(p.Text)...)
	out = append(out, notifytest.Reads(p.HTML)...)
	for _, a := range p.Attachments {
		if strings.HasSuffix(a.Name, ".ics") {
			ics := strings.ReplaceAll(string(a.Data), "\r\n ", "")
			for _, l := range strings.Split(ics, "\r\n") {
				if k, v, ok := strings.Cut(l, ":"); ok && (k == "SUMMARY" || k == "DESCRIPTION" || strings.HasPrefix(k, "SUMMARY;")) {
					v = strings.NewReplacer(`\n`, "\n", `\,`, ",", `\;`, ";", `\\`, `\`).Replace(v)
					out = append(out, notifytest.Lines(v)...)
				}
			}
		}
	}
	var push PushPayload
	if err := json.Unmarshal(Push(m), &push); err != nil {
		t.Fatal(err)
	}
	out = append(out, push.Title, push.Action)
	out = append(out, notifytest.Lines(push.Body)...)
	return out
}

// messageData is what m holds that a party or a person wrote, and what a
// page writes for a machine.
func messageData(m *Message) []string {
	d := []string{m.Title, m.Agent, m.Them, m.To, m.Endpoint, "Taasky", "UTC", "EUR", "Europe/Paris",
		`"office"`, "office"}
	if m.Card != nil {
		for _, o := range m.Card.Options {
			for _, f := range o.Fields {
				d = append(d, f.Label)
				if f.Type == negotiation.TypeString || f.Type == negotiation.TypeEnum {
					d = append(d, f.Text)
				}
			}
		}
	}
	for _, n := range m.NoDeal {
		d = append(d, n.Label)
	}
	return d
}

// everyMessage is each kind of message in each of its states that says
// something else.
func everyMessage() []*Message {
	var out []*Message
	add := func(kind Kind, id string, change func(m *Message)) {
		m := sample(kind)
		m.ID = id
		m.Card = richCard()
		m.SettingsURL = "https://taasky.example/settings"
		if change != nil {
			change(m)
		}
		out = append(out, m)
	}
	for _, v := range []negotiation.Verdict{negotiation.VerdictApprove, negotiation.VerdictReject, negotiation.VerdictCancel, negotiation.VerdictPreapprove} {
		add(KindRequest, "request-"+string(v), func(m *Message) { m.Verdict = v; m.Card.Asking.Verdict = v })
		add(KindReminder, "reminder-"+string(v), func(m *Message) { m.Verdict = v; m.Card.Asking.Verdict = v })
	}
	add(KindRequest, "request-handed-over-agrees", func(m *Message) { m.HandedOver = true; m.Card.Agrees = true; m.Card.NewSchema = true })
	add(KindRequest, "request-no-title", func(m *Message) { m.Title = ""; m.Agent = "" })
	add(KindRequest, "request-two-options", func(m *Message) {
		m.Verdict = negotiation.VerdictReject
		m.Card.Options = append(m.Card.Options, m.Card.Options[0])
	})
	add(KindRequest, "request-deleted-account", func(m *Message) { m.Them = ""; m.ThemKey = "party.deleted_account" })
	add(KindReminder, "reminder-person", func(m *Message) { m.Person = true; m.Title = "" })
	add(KindAgreed, "agreed", func(m *Message) { m.Receipt = "eyJhbGciOiJFZERTQSJ9.e30.c2ln" })
	add(KindAgreed, "agreed-person", func(m *Message) { m.Person = true; m.Them = ""; m.ThemKey = "party.inviter" })
	for _, r := range []negotiation.ClosedReason{negotiation.ClosedRejected, negotiation.ClosedCancelled, negotiation.ClosedWithdrawn,
		negotiation.ClosedExpired, negotiation.ClosedLapsed, negotiation.ClosedAccountDeleted} {
		add(KindClosed, "closed-"+string(r), func(m *Message) { m.ClosedReason = r })
	}
	add(KindNoDeal, "no-deal", nil)
	add(KindNoDeal, "no-deal-optional", func(m *Message) {
		m.NoDeal = []negotiation.CardNote{{Name: "fee", Label: "Fee", Optional: true}, {Name: "room", Label: "Room", Theirs: true, Optional: true}}
	})
	for _, v := range []negotiation.Verdict{negotiation.VerdictOffer, negotiation.VerdictCounter, negotiation.VerdictNeedMoreDetail, negotiation.VerdictApprove} {
		add(KindTurn, "turn-"+string(v), func(m *Message) { m.Verdict = v; m.Person = true; m.ThemKey = "party.inviter" })
	}
	add(KindInvite, "invite", func(m *Message) {
		m.InviteURL, m.ExpiresAt = "https://taasky.example/i/inv_x", moment("2026-10-15T10:00:00Z")
	})
	add(KindInvite, "invite-untitled-utc", func(m *Message) {
		m.InviteURL, m.Title, m.Them, m.ExpiresAt = "https://taasky.example/i/inv_x", "", "", moment("2026-10-15T10:00:00Z")
		m.TimeZone = moment("2026-10-15T10:00:00Z").Location()
	})
	for _, role := range []string{"owner", "admin", "member"} {
		add(KindMemberInvite, "member-invite-"+role, func(m *Message) {
			m.Card, m.Role, m.Them, m.InviteURL = nil, role, "Alice & Co", "https://taasky.example/join/j_x"
			m.ExpiresAt = moment("2026-10-15T10:00:00Z")
		})
	}
	add(KindMemberInvite, "member-invite-operator", func(m *Message) {
		m.Card, m.Role, m.Agent, m.InviteURL = nil, "member", "", "https://taasky.example/join/j_x"
		m.ExpiresAt = moment("2026-10-15T10:00:00Z")
	})
	for i, detail := range []string{"answered HTTP 500", "no answer: context deadline exceeded",
		"no answer: dial tcp 192.0.2.1:443: connect: connection refused", "no answer: tls: failed to verify certificate: x509: certificate signed by unknown authority"} {
		add(KindWebhookDisabled, fmt.Sprint("webhook-disabled-", i), func(m *Message) {
			m.Card, m.Endpoint, m.Detail = nil, "https://hooks.example.test/in", detail
		})
	}
	add(KindTest, "test", func(m *Message) { m.Card = nil })
	return out
}

// richCard is a card with a field of each kind the reader's language
// rewrites: a moment, a day, yes/no, an amount over a thousand; one of
// the other side's, and one missing.
func richCard() *negotiation.Card {
	start, end := moment("2026-10-14T10:00:00Z"), moment("2026-10-14T10:30:00Z")
	return &negotiation.Card{Viewer: "b", TabledBy: "a", Options: []negotiation.CardOption{{
		SubjectHash: "sha256:aa",
		Fields: []negotiation.CardField{
			{Name: "meeting_time", Label: "Meeting time", Type: negotiation.TypeTimerange, Values: []negotiation.Value{{Start: start, End: end}}},
			{Name: "fee", Label: "Fee", Type: negotiation.TypeMoney, Values: []negotiation.Value{{Amount: decimal.RequireFromString("1500.00"), Currency: "EUR"}},
				Outside: []negotiation.Bound{negotiation.BoundMax}},
			{Name: "day", Label: "Day", Type: negotiation.TypeDate, Values: []negotiation.Value{{Start: moment("2026-11-02T00:00:00Z")}}},
			{Name: "remote", Label: "Remote", Type: negotiation.TypeBool, Values: []negotiation.Value{{Bool: true}}},
			{Name: "place", Label: "Where", Type: negotiation.TypeEnum, Values: []negotiation.Value{{Text: "office"}}, Text: "office"},
			{Name: "room", Label: "Their room", Theirs: true, Type: negotiation.TypeString, Values: []negotiation.Value{{Text: "B 4"}}, Text: "B 4"},
			{Name: "notes", Label: "Notes", Missing: true, Type: negotiation.TypeString},
		},
	}}, Asking: &negotiation.Confirmation{ID: "cf_1", Verdict: negotiation.VerdictApprove, SubjectHash: "sha256:aa"}}
}
