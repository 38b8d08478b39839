package notify

import (
	"fmt"
	"strings"
	"time"
	"unicode"

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
	Calendar    bool // an .ics is attached
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

var verbs = map[negotiation.Verdict]struct{ ask, subject, after string }{
	negotiation.VerdictApprove:    {"approve these terms", "Approve these terms?", ""},
	negotiation.VerdictReject:     {"reject the terms on the table", "Reject the terms?", "Rejecting closes the room for good."},
	negotiation.VerdictCancel:     {"withdraw from the negotiation", "Withdraw?", "The room closes for both sides and cannot be reopened."},
	negotiation.VerdictPreapprove: {"accept any of these options", "Accept any of these options?", "The other side picks one, and the room is agreed at once."},
}

var closedWhy = map[negotiation.ClosedReason]string{
	negotiation.ClosedRejected:  "the terms were rejected",
	negotiation.ClosedCancelled: "one side withdrew",
	negotiation.ClosedWithdrawn: "the invitation was withdrawn",
	negotiation.ClosedExpired:   "nobody answered the invitation within 72 hours",
	negotiation.ClosedLapsed:    "the deadline passed without an agreement",
}

var boundWords = map[negotiation.Bound]string{
	negotiation.BoundMin:    "below your minimum",
	negotiation.BoundMax:    "above your maximum",
	negotiation.BoundOneOf:  "not one of the values you accept",
	negotiation.BoundEquals: "not the value you require",
}

func (m *Message) view() view {
	about := oneLine(m.subjectOf())
	in := ""
	if m.Title != "" {
		in = " in “" + oneLine(m.Title) + "”"
	}
	with := ""
	if m.Them != "" {
		with = " with " + oneLine(m.Them)
	}
	agent := "Your agent"
	if m.Agent != "" {
		agent = "Your agent, " + oneLine(m.Agent) + ","
	}
	v := view{RoomURL: m.RoomURL, Settings: m.SettingsURL, Deadline: formatMoment(m.Deadline, m.loc())}
	if !m.Kind.Critical() {
		v.Unsubscribe = m.UnsubscribeURL
	}
	verb := verbs[m.Verdict]
	switch m.Kind {
	case KindRequest:
		v.Subject = verb.subject + " — " + about
		v.Heading = verb.subject
		v.Intro = agent + " asks you to " + verb.ask + in + with + ". " + verb.after
		v.ActionURL, v.ActionLabel = m.OneTapURL, "Review and answer"
		v.Why = "Your agent cannot make this move without you. The link shows the terms first; nothing happens until you press a button."
	case KindReminder:
		v.Subject = "Reminder: your answer is waiting — " + about
		v.Heading = "Your answer is still waiting"
		v.Intro = agent + " asked you to " + verb.ask + in + with + ". The deadline is " + v.Deadline +
			" (" + untilText(m.Deadline.Sub(m.Now)) + "); if nobody agrees by then, the room closes."
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
		why := closedWhy[m.ClosedReason]
		if why == "" {
			why = string(m.ClosedReason)
		}
		v.Intro = "The negotiation" + in + with + " is closed: " + why + "."
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
		if m.Them != "" {
			who = oneLine(m.Them)
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
			v.Notes = append(v.Notes, "The invitation expires "+formatMoment(m.ExpiresAt, m.loc())+" if nobody answers it.")
		}
		v.Why = who + " gave your address to Taasky when opening this negotiation. Nothing more is sent to you unless you answer."
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
			v.Notes = append(v.Notes, "Their schema is new to your account: check the labels marked as theirs.")
		}
	}
	if len(m.NoDeal) > 0 && m.Kind != KindNoDeal {
		v.Notes = append(v.Notes, "No deal is possible on "+strings.Join(m.NoDeal, ", ")+": the two sides' limits cannot overlap.")
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
			ov.Name = fmt.Sprintf("Option %d of %d", i+1, len(opts))
		}
		for _, f := range o.Fields {
			fv := fieldView{Label: oneLine(f.Label), Text: f.Text, Theirs: f.Theirs, Missing: f.Missing}
			var flags []string
			for _, b := range f.Outside {
				flags = append(flags, boundWords[b])
			}
			if len(flags) > 0 {
				fv.Flag = "outside your limits: " + strings.Join(flags, ", ")
			}
			ov.Fields = append(ov.Fields, fv)
		}
		out = append(out, ov)
	}
	return out
}

// formatMoment writes a moment for a person, in their time zone.
func formatMoment(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(loc)
	zone := loc.String()
	if zone == "" || zone == "Local" {
		zone = "UTC" + t.Format("-07:00")
	}
	return t.Format("Mon 2 Jan 2006, 15:04") + " (" + zone + ")"
}

func untilText(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d < 90*time.Minute:
		return fmt.Sprintf("in about %d minutes", int(d.Round(time.Minute)/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("in about %d hours", int(d.Round(time.Hour)/time.Hour))
	}
	return fmt.Sprintf("in about %d days", int(d.Round(24*time.Hour)/(24*time.Hour)))
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
