package mcpserver

import (
	"strconv"
	"strings"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

// forYourHuman writes the room for the agent's human, to be shown as it is:
// in their language, with their labels and time zone, the other side's
// words marked as theirs, and what is being asked of them.
func forYourHuman(v *app.View) string {
	words := locale.NewPrinter(v.Lang)
	var b strings.Builder
	line := func(key locale.Key, args ...any) {
		b.WriteString(words.T(key, args...))
		b.WriteByte('\n')
	}
	if v.Title != "" {
		line("human.title", v.Title)
	}
	switch v.State {
	case negotiation.StateDraft:
		line("human.draft")
		switch u := undelivered(v, app.UndeliveredInvitation); {
		case u == nil:
		case u.Retrying && u.To != "":
			line("delay19_human.invite_delayed", u.To)
		case u.Retrying:
			line("delay19_human.invite_delayed_erased")
		case u.To != "":
			line("bounce18_human.invite_undelivered", u.To)
		default:
			line("bounce18_human.invite_undelivered_erased")
		}
		if !v.InvitationExpires.IsZero() {
			line("values.invitation_expires", words.Moment(v.InvitationExpires, v.TimeZone))
		}
	case negotiation.StateAwaiting:
		if v.Turn != nil && *v.Turn == "you" {
			line("human.your_turn")
		} else {
			line("human.their_turn")
		}
	case negotiation.StateAgreed:
		line("human.agreed")
	case negotiation.StateClosed:
		line("human.closed", words.ClosedReason(v.ClosedReason))
	}
	if !v.State.Terminal() {
		deadline, _ := time.Parse(time.RFC3339, v.Deadline)
		line("human.deadline", words.Moment(deadline, v.TimeZone))
	}
	if c := v.Card; c != nil {
		yours := c.TabledBy == v.Side
		options := asked(c.Options, v.PendingConfirmation)
		switch {
		case len(options) > 1 && yours:
			line("human.options.yours")
		case len(options) > 1:
			line("human.options.theirs")
		case yours:
			line("human.terms.yours")
		default:
			line("human.terms.theirs")
		}
		// An outside value is accepted anyway only by an approval.
		approving := v.PendingConfirmation != nil && v.PendingConfirmation.Verdict == negotiation.VerdictApprove
		for i, o := range options {
			if len(options) > 1 {
				line("human.option", words.Option(i, len(options)))
			}
			for _, f := range o.Fields {
				b.WriteString(cardLine(words, f, v.TimeZone, approving, !yours))
			}
		}
		// The card decided it: the other side approved what is shown (the
		// one option asked, or the only one on the table).
		if len(options) == 1 && options[0].TheyApproved {
			line("hum12_agrees")
		}
		// The note asks the human to check each field before confirming:
		// it is said while they are asked to (their card says it too).
		if c.NewSchema && v.PendingConfirmation != nil {
			line("card.new_schema")
		}
	}
	if len(v.DetailAsked) > 0 {
		line("hum12_detail_asked", strings.Join(words.Notes(v.DetailAsked), ", "))
	}
	if len(v.NoDealNotes) > 0 {
		b.WriteString(words.NoDealNote(v.NoDealNotes...) + "\n")
	}
	if p := v.PendingConfirmation; p != nil {
		ask := words.T("human.confirm", words.Ask(p.Verdict))
		if after := words.AskAfter(p.Verdict, v.Card); after != "" {
			ask += " " + after
		}
		where := locale.Key("human.confirm_where")
		if p.NotNotified {
			where = "human.confirm_dashboard"
		}
		if u := undelivered(v, app.UndeliveredRequest); u != nil && u.Retrying {
			where = "outage19_human.confirm_delayed"
		} else if u != nil {
			where = "bounce18_human.confirm_undelivered"
		}
		b.WriteString(ask + " " + words.T(where) + "\n")
	}
	return b.String()
}

// undelivered is the view's refused email of kind what, or nil.
func undelivered(v *app.View, what string) *app.UndeliveredView {
	for i := range v.Undelivered {
		if v.Undelivered[i].What == what {
			return &v.Undelivered[i]
		}
	}
	return nil
}

// asked is the options to show: the one an approval asks the human to
// confirm (as their mail and card show it), else all of them.
func asked(options []negotiation.CardOption, p *app.ConfirmationView) []negotiation.CardOption {
	if p != nil && p.Verdict == negotiation.VerdictApprove {
		for _, o := range options {
			if o.SubjectHash == p.SubjectHash {
				return []negotiation.CardOption{o}
			}
		}
	}
	return options
}

// quoteEach quotes a string field's values one by one ("a; b" one
// value, "a", "b" two: other terms, written alike once joined), or its
// text when it holds none.
func quoteEach(f negotiation.CardField) string {
	if len(f.Values) < 2 {
		return strconv.Quote(f.Text)
	}
	parts := make([]string, len(f.Values))
	for i, v := range f.Values {
		parts[i] = strconv.Quote(v.Text)
	}
	return strings.Join(parts, ", ")
}

// cardLine is one field in the reader's words and zone; fromThem: the
// other side tabled it, so its strings are their words.
func cardLine(words *locale.Printer, f negotiation.CardField, loc *time.Location, approving, fromThem bool) string {
	label := words.Label(f.Label, f.Shorthand) // the slots shorthand's: Taasky's name, neither side's
	if f.Theirs && !f.Shorthand {
		label = words.T("human.their_field", label)
	}
	switch {
	case f.Missing:
		return "- " + words.T("form.at", label, words.T("human.not_given")) + "\n"
	case f.Type == negotiation.TypeString && fromThem:
		return "- " + words.T("form.at", label, words.T("human.their_words", quoteEach(f))) + "\n"
	case f.Type == negotiation.TypeString:
		return "- " + words.T("form.at", label, quoteEach(f)) + "\n"
	}
	text := words.Value(f, loc)
	if f.Theirs && f.Type == negotiation.TypeEnum {
		text = words.T("human.their_words", text)
	}
	line := "- " + words.T("form.at", label, text) // "Fee : …" in French, "Fee：…" in Japanese
	switch {
	case len(f.Outside) > 0 && approving:
		line += " — " + words.T("human.outside")
	case len(f.Outside) > 0:
		line += " — " + words.T("human.outside_limits")
	}
	if f.NoDeal {
		line += " — " + words.T("human.no_deal_field")
	}
	return line + "\n"
}
