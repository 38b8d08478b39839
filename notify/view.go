package notify

import (
	"strings"
	"unicode"

	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

// view is a Message in words: what the email templates and the push
// payload show.
type view struct {
	Subject     string
	Heading     string
	Intro       string
	Options     []optionView
	Notes       []string
	ActionURL   string
	ActionLabel string
	RoomURL     string
	Deadline    string
	Why         string // why the recipient gets this message
	Unsubscribe string
	Settings    string
	Calendar    bool   // an .ics is attached
	Receipt     string // the attached receipt, in a sentence ("" for none)
}

type optionView struct {
	Name   string // "Option 2 of 3", or "" for single terms
	Fields []fieldView
}

type fieldView struct {
	Label   string
	Text    string
	Theirs  bool   // their field, their label
	Missing bool   // a required field of the recipient's that the terms lack
	Flag    string // outside the recipient's limits, in words (never a number)
}

// words is the vocabulary notify writes in; a Message has no language of
// its own yet.
var words = locale.English()

func (m *Message) view() view {
	about := oneLine(m.subjectOf())
	in := ""
	if m.Title != "" {
		in = " in “" + oneLine(m.Title) + "”"
	}
	with := ""
	if m.them() != "" {
		with = " with " + oneLine(m.them())
	}
	agent := "Your agent"
	if m.Agent != "" {
		agent = "Your agent, " + oneLine(m.Agent) + ","
	}
	v := view{RoomURL: m.RoomURL, Settings: m.SettingsURL, Deadline: words.Moment(m.Deadline, m.loc())}
	if !m.Kind.Critical() {
		v.Unsubscribe = m.UnsubscribeURL
	}
	switch m.Kind {
	case KindRequest:
		v.Subject = words.AskQuestion(m.Verdict) + " — " + about
		v.Heading = words.AskQuestion(m.Verdict)
		v.Intro = agent + " asks you to " + words.Ask(m.Verdict) + in + with + ". " + words.AskAfter(m.Verdict)
		v.ActionURL, v.ActionLabel = m.OneTapURL, "Review and answer"
		v.Why = "Your agent cannot make this move without you. The link shows the terms first; nothing happens until you press a button."
		if m.HandedOver {
			v.Notes = append(v.Notes, words.T("request.handed_over"))
		}
	case KindReminder:
		v.Subject = "Reminder: your answer is waiting — " + about
		v.Heading = "Your answer is still waiting"
		v.Intro = agent + " asked you to " + words.Ask(m.Verdict) + in + with + ". The deadline is " + v.Deadline +
			" (" + words.Until(m.Deadline.Sub(m.Now)) + "); if nobody agrees by then, the room closes."
		v.ActionURL, v.ActionLabel = m.OneTapURL, "Review and answer"
		v.Why = "A reminder before the deadline of a confirmation you have not answered yet."
	case KindAgreed:
		v.Subject = "Agreed — " + about
		v.Heading = "Agreed"
		v.Intro = "Agreed" + in + with + ": both of you approved these terms."
		v.ActionURL, v.ActionLabel = m.RoomURL, "Open the room"
		v.Why = "A notice: a negotiation of yours is agreed."
	case KindClosed:
		v.Subject = "Closed — " + about
		v.Heading = "Closed"
		v.Intro = "The negotiation" + in + with + " is closed: " + words.ClosedReason(m.ClosedReason) + "."
		v.ActionURL, v.ActionLabel = m.RoomURL, "Open the room"
		v.Why = "A notice: a negotiation of yours ended without an agreement."
	case KindNoDeal:
		v.Subject = "No deal possible on " + strings.Join(m.NoDeal, ", ") + " — " + about
		v.Heading = "No deal possible"
		v.Intro = "No deal is possible" + in + with + " on " + strings.Join(m.NoDeal, ", ") +
			": your limits and theirs cannot overlap. Neither side's numbers were shared with the other."
		v.ActionURL, v.ActionLabel = m.RoomURL, "Open the room"
		v.Why = "A notice: Taasky compares both sides' limits once, when the other side joins."
	case KindInvite:
		who := "Someone"
		if m.them() != "" {
			who = oneLine(m.them())
		}
		v.Subject = who + " invites you to negotiate"
		if m.Title != "" {
			v.Subject += " “" + oneLine(m.Title) + "”"
		}
		v.Heading = who + " invites you"
		about := "terms with you"
		if m.Title != "" {
			about = "“" + oneLine(m.Title) + "” with you"
		}
		v.Intro = who + "'s agent would like to agree on " + about + ". Open the invitation to see what they propose: " +
			"you can answer in the browser (pick, approve, counter or decline), or give the link to an agent of your own."
		v.ActionURL, v.ActionLabel = m.InviteURL, "See the invitation"
		if !m.ExpiresAt.IsZero() && m.ExpiresAt.Before(m.Deadline) {
			v.Notes = append(v.Notes, "The invitation expires "+words.Moment(m.ExpiresAt, m.loc())+" if nobody answers it.")
		}
		v.Why = who + " gave your address to Taasky when opening this negotiation. Nothing more is sent to you unless you answer."
	case KindMemberInvite:
		acct, who := oneLine(m.them()), oneLine(m.Agent)
		v.Subject = words.T("member_invite.subject", who, acct)
		v.Heading = words.T("member_invite.heading", acct)
		v.Intro = words.T("member_invite.intro", who, acct, words.T("role."+locale.Key(m.Role)))
		v.ActionURL, v.ActionLabel = m.InviteURL, words.T("member_invite.action")
		v.Notes = append(v.Notes, words.T("member_invite.expires", words.Moment(m.ExpiresAt, m.loc())),
			words.T("member_invite.sign_in", m.To))
		v.Why = words.T("member_invite.why", who)
	case KindWebhookDisabled:
		acct := oneLine(m.Them)
		v.Subject = words.T("webhook.disabled.subject", acct)
		v.Heading = words.T("webhook.disabled.heading")
		v.Intro = words.T("webhook.disabled.intro", oneLine(m.Endpoint), acct)
		v.Notes = append(v.Notes, words.T("webhook.disabled.last", oneLine(m.Detail)))
		v.ActionURL, v.ActionLabel = m.SettingsURL, words.T("webhook.disabled.action")
		v.Why = words.T("webhook.disabled.why", acct)
	case KindTest:
		v.Subject = "Taasky test notification"
		v.Heading = "It works"
		v.Intro = "This device will show Taasky's requests for your confirmation."
		v.ActionURL, v.ActionLabel = m.SettingsURL, "Settings"
	}
	v.Intro = strings.TrimSpace(v.Intro)
	v.Subject = oneLine(v.Subject)
	if m.Card != nil && m.Kind != KindNoDeal && m.Kind != KindClosed {
		v.Options = optionsOf(m.Card, m.Kind, m.Verdict)
		if m.Card.NewSchema && (m.Kind == KindRequest || m.Kind == KindReminder) {
			v.Notes = append(v.Notes, words.T("card.new_schema"))
		}
	}
	if len(m.NoDeal) > 0 && m.Kind != KindNoDeal {
		v.Notes = append(v.Notes, words.NoDeal(m.NoDeal))
	}
	return v
}

// optionsOf lists what the card shows: for an approve, the option asked
// for; otherwise every option on the table.
func optionsOf(c *negotiation.Card, kind Kind, verdict negotiation.Verdict) []optionView {
	opts := c.Options
	if (kind == KindRequest || kind == KindReminder) && verdict == negotiation.VerdictApprove && c.Asking != nil {
		for _, o := range c.Options {
			if o.SubjectHash == c.Asking.SubjectHash {
				opts = []negotiation.CardOption{o}
				break
			}
		}
	}
	var out []optionView
	for i, o := range opts {
		ov := optionView{}
		if len(opts) > 1 {
			ov.Name = words.Option(i, len(opts))
		}
		for _, f := range o.Fields {
			fv := fieldView{Label: oneLine(f.Label), Text: f.Text, Theirs: f.Theirs, Missing: f.Missing}
			if len(f.Outside) > 0 {
				fv.Flag = words.Outside(f.Outside)
			}
			ov.Fields = append(ov.Fields, fv)
		}
		out = append(out, ov)
	}
	return out
}

// oneLine keeps text written by a party (titles, labels) on one line:
// control characters become spaces, so they cannot forge a header or a
// line of the message.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}
