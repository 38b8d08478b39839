package notify

import (
	"strings"
	"time"
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
	StopLabel   string // the unsubscribe link's words
	Settings    string
	Calendar    bool   // an .ics is attached
	Receipt     string // the attached receipt, in a sentence ("" for none)
	w           *locale.Printer
}

// T writes a message of the recipient's language, for the templates.
func (v view) T(key locale.Key, args ...any) string { return v.w.T(key, args...) }

// Lang is the recipient's language tag, for the HTML's lang.
func (v view) Lang() string { return v.w.Lang() }

// Field is a field's line in the text part: its label (a label of the
// other side's marked as theirs) and its value, joined as the reader's
// language joins them (form.at: "Fee : …" in French, "Fee：…" in
// Japanese).
func (v view) Field(f fieldView) string {
	value := f.Indented()
	if f.Missing {
		value = v.w.T("card.missing")
	}
	return v.w.T("form.at", v.label(f), value)
}

// label is f's label, marked as theirs when it is the other side's: their
// label is not Taasky's word (the mail's text part, the push).
func (v view) label(f fieldView) string {
	if f.Theirs {
		return v.w.T("human.their_field", f.Label)
	}
	return f.Label
}

// Head is label with the reader's colon, for a line whose rest (a link)
// is on the next: "Voir et répondre :".
func (v view) Head(label string) string {
	return strings.TrimRight(v.w.T("form.at", label, ""), " ")
}

type optionView struct {
	Name   string // "Option 2 of 3", or "" for single terms
	Fields []fieldView
}

type fieldView struct {
	Label   string
	Text    string
	Items   []string // each value apart, when the field has several (Text joins them)
	Words   bool     // a string or enum: words a party wrote
	Theirs  bool     // their field, their label
	Missing bool     // a required field of the recipient's that the terms lack
	Flag    string   // outside the recipient's limits, in words (never a number)
}

// Indented is Text for the text part: a string value may hold line
// breaks (the terms allow them), and each line after its first is
// indented under its field as a flag is, so that the other side's words
// cannot make a line that reads as the mail's own (an action link, a
// signature). A CR alone or with LF is a line break too, and so are the
// line and paragraph separators (U+2028, U+2029), which the terms allow
// and mail clients break the line at.
//
// Several values are listed, one a line ("- " and the value, its further
// lines indented under it), so that one value "a; b" does not read as
// two, "a" and "b": other terms.
func (f fieldView) Indented() string {
	if len(f.Items) < 2 {
		return valueBreaks.Replace(f.Text)
	}
	var b strings.Builder
	for _, it := range f.Items {
		b.WriteString("\n      - ")
		b.WriteString(itemBreaks.Replace(it))
	}
	return b.String()
}

var valueBreaks = strings.NewReplacer("\r\n", "\n      ", "\r", "\n      ", "\n", "\n      ",
	"\u2028", "\n      ", "\u2029", "\n      ")

// itemBreaks indents a listed value's further lines under it.
var itemBreaks = strings.NewReplacer("\r\n", "\n        ", "\r", "\n        ", "\n", "\n        ",
	"\u2028", "\n        ", "\u2029", "\n        ")

// words is the recipient's language.
func (m *Message) words() *locale.Printer { return locale.NewPrinter(m.Lang) }

func (m *Message) view() view {
	w := m.words()
	about := oneLine(m.subjectOf(w))
	title := ""
	if m.Title != "" {
		title = oneLine(m.Title)
	}
	them := oneLine(m.them(w))
	// in names the room in a sentence: "in “Title” with Them", either
	// part left out when unknown.
	in := ""
	switch {
	case title != "" && them != "":
		in = w.T("mail.in_with", title, them)
	case title != "":
		in = w.T("mail.in", title)
	case them != "":
		in = w.T("mail.with", them)
	}
	agent := w.T("mail.your_agent")
	if m.Agent != "" {
		agent = w.T("mail.your_agent_named", oneLine(m.Agent))
	}
	v := view{RoomURL: m.RoomURL, Settings: m.SettingsURL, StopLabel: w.T("mail.stop"), w: w}
	if !m.Kind.Critical() {
		v.Unsubscribe = m.UnsubscribeURL
	}
	switch m.Kind {
	case KindRequest:
		v.Deadline = w.Moment(m.Deadline, m.loc())
		v.Subject = w.T("mail.subject", w.AskQuestion(m.Verdict), about)
		v.Heading = w.AskQuestion(m.Verdict)
		v.Intro = w.T("mail.request.intro", agent, w.Ask(m.Verdict), in) + " " + w.AskAfter(m.Verdict, m.Card)
		v.ActionURL, v.ActionLabel = m.OneTapURL, w.T("mail.review")
		v.Why = w.T("mail.request.why")
		if m.HandedOver {
			v.Notes = append(v.Notes, w.T("request.handed_over"))
		}
	case KindReminder:
		if m.Person {
			// A person's turn, not a confirmation: their page answers it.
			v.Deadline = w.Moment(m.Deadline, m.loc())
			v.Subject = w.T("mail.subject", w.T("remind11_person.subject"), about)
			v.Heading = w.T("remind11_person.heading")
			v.Intro = w.T("remind11_person.intro", in) + " " +
				w.T("mail.reminder.deadline", v.Deadline, w.Until(m.Deadline.Sub(m.Now)))
			v.ActionURL, v.ActionLabel = m.RoomURL, w.T("mail.turn.action")
			break
		}
		v.Deadline = w.Moment(m.Deadline, m.loc())
		v.Subject = w.T("mail.subject", w.T("mail.reminder.subject"), about)
		v.Heading = w.T("mail.reminder.heading")
		v.Intro = w.T("mail.reminder.intro", agent, w.Ask(m.Verdict), in) + " " +
			w.T("mail.reminder.deadline", v.Deadline, w.Until(m.Deadline.Sub(m.Now)))
		v.ActionURL, v.ActionLabel = m.OneTapURL, w.T("mail.review")
		v.Why = w.T("mail.reminder.why")
	case KindAgreed:
		v.Subject = w.T("mail.subject", w.T("mail.agreed.heading"), about)
		v.Heading = w.T("mail.agreed.heading")
		v.Intro = w.T("mail.agreed.intro", in)
		v.ActionURL, v.ActionLabel = m.RoomURL, w.T("mail.open_room")
		v.Why = w.T("mail.agreed.why")
	case KindClosed:
		v.Subject = w.T("mail.subject", w.T("mail.closed.heading"), about)
		v.Heading = w.T("mail.closed.heading")
		v.Intro = w.T("mail.closed.intro", in, w.ClosedReason(m.ClosedReason))
		v.ActionURL, v.ActionLabel = m.RoomURL, w.T("mail.open_room")
		v.Why = w.T("mail.closed.why")
	case KindTurn:
		// A person without an agent: what the other side did, and that
		// it is theirs to answer now.
		v.Deadline = w.Moment(m.Deadline, m.loc())
		v.Subject = w.T("mail.subject", w.T("mail.turn.heading"), about)
		v.Heading = w.T("mail.turn.heading")
		v.Intro = turnIntro(w, m.Verdict, them, title)
		v.ActionURL, v.ActionLabel = m.RoomURL, w.T("mail.turn.action")
	case KindNoDeal:
		fields := strings.Join(w.Notes(m.NoDeal), ", ")
		v.Subject = w.T("mail.subject", w.T("mail.no_deal.subject", fields), about)
		v.Heading = w.T("mail.no_deal.heading")
		v.Intro = w.T("mail.no_deal.intro", in, fields)
		if out := w.NoDealLeftOut(m.NoDeal); out != "" {
			v.Intro += " " + out
		}
		v.ActionURL, v.ActionLabel = m.RoomURL, w.T("mail.open_room")
		v.Why = w.T("mail.no_deal.why")
	case KindInvite:
		who := w.T("mail.invite.someone")
		if them != "" {
			who = them
		}
		v.Deadline = w.Moment(m.Deadline, m.loc())
		if title != "" {
			v.Subject = w.T("mail.invite.subject_titled", who, title)
			v.Intro = w.T("mail.invite.intro_titled", who, title)
		} else {
			v.Subject = w.T("mail.invite.subject", who)
			v.Intro = w.T("mail.invite.intro", who)
		}
		v.Heading = w.T("mail.invite.heading", who)
		v.ActionURL, v.ActionLabel = m.InviteURL, w.T("mail.invite.action")
		if !m.ExpiresAt.IsZero() && m.ExpiresAt.Before(m.Deadline) {
			v.Notes = append(v.Notes, w.T("mail.invite.expires", w.Moment(m.ExpiresAt, m.loc())))
		}
		if m.loc().String() == "UTC" { // a stranger's: their own zone is not known
			v.Notes = append(v.Notes, w.T("mail.invite.zone"))
		}
		v.Why = w.T("mail.invite.why", who)
		v.Unsubscribe, v.StopLabel = m.UnsubscribeURL, w.T("mail.invite.refuse")
	case KindMemberInvite:
		acct, who := oneLine(m.Them), oneLine(m.Agent)
		if who == "" {
			who = w.T("member_invite.operator")
		}
		v.Subject = w.T("member_invite.subject", who, acct)
		v.Heading = w.T("member_invite.heading", acct)
		v.Intro = w.T("member_invite.intro", who, acct, w.T("role."+locale.Key(m.Role)))
		v.ActionURL, v.ActionLabel = m.InviteURL, w.T("member_invite.action")
		v.Notes = append(v.Notes, w.T("member_invite.expires", w.Moment(m.ExpiresAt, m.loc())),
			w.T("member_invite.sign_in", m.To))
		v.Why = w.T("member_invite.why", who)
		v.Unsubscribe, v.StopLabel = m.UnsubscribeURL, w.T("mail.invite.refuse")
	case KindWebhookDisabled:
		acct := oneLine(m.Them)
		v.Subject = w.T("webhook.disabled.subject", acct)
		v.Heading = w.T("webhook.disabled.heading")
		v.Intro = w.T("webhook.disabled.intro", oneLine(m.Endpoint), acct)
		v.Notes = append(v.Notes, w.T("webhook.disabled.last", oneLine(w.HookFailure(m.Detail))))
		v.ActionURL, v.ActionLabel = m.SettingsURL, w.T("webhook.disabled.action")
		v.Why = w.T("webhook.disabled.why", acct)
	case KindTest:
		v.Subject = w.T("mail.test.subject")
		v.Heading = w.T("mail.test.heading")
		v.Intro = w.T("mail.test.intro")
		v.ActionURL, v.ActionLabel = m.SettingsURL, w.T("layout.settings")
	}
	if m.Person {
		v.Why = w.T("mail.person.why", them)
	}
	v.Intro = strings.TrimSpace(v.Intro)
	v.Subject = oneLine(v.Subject)
	if m.Card != nil && m.Kind != KindNoDeal && m.Kind != KindClosed {
		v.Options = optionsOf(w, m.Card, m.Kind, m.Verdict, m.loc())
		// The card decided whether the other side approved what is asked.
		if m.Card.Agrees && (m.Kind == KindRequest || m.Kind == KindReminder) && !m.Person {
			v.Notes = append(v.Notes, w.T("hum12_agrees"))
		}
		if m.Card.NewSchema && (m.Kind == KindRequest || m.Kind == KindReminder) {
			v.Notes = append(v.Notes, w.T("card.new_schema"))
		}
	}
	if len(m.NoDeal) > 0 && m.Kind != KindNoDeal {
		v.Notes = append(v.Notes, w.NoDealNote(m.NoDeal...))
	}
	return v
}

// turnIntro says what the other side did that made it a person's turn.
func turnIntro(w *locale.Printer, verdict negotiation.Verdict, them, title string) string {
	in := ""
	if title != "" {
		in = w.T("mail.in", title)
	}
	switch verdict {
	case negotiation.VerdictApprove:
		return w.T("mail.turn.approve", them, in)
	case negotiation.VerdictNeedMoreDetail:
		return w.T("mail.turn.need_more_detail", them, in)
	case negotiation.VerdictCounter:
		return w.T("mail.turn.counter", them, in)
	}
	return w.T("mail.turn.offer", them, in)
}

// optionsOf lists what the card shows: for an approve, the option asked
// for; otherwise every option on the table.
func optionsOf(w *locale.Printer, c *negotiation.Card, kind Kind, verdict negotiation.Verdict, loc *time.Location) []optionView {
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
			ov.Name = w.Option(i, len(opts))
		}
		for _, f := range o.Fields {
			// The slots shorthand's field is named by Taasky, in the
			// reader's words, and is neither side's.
			fv := fieldView{Label: oneLine(w.Label(f.Label, f.Shorthand)), Text: w.Value(f, loc), Items: w.Items(f, loc),
				Words:  f.Type == negotiation.TypeString || f.Type == negotiation.TypeEnum,
				Theirs: (f.Theirs || f.TheirLabel) && !f.Shorthand, Missing: f.Missing}
			if len(f.Outside) > 0 {
				fv.Flag = w.Outside(f.Outside)
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
