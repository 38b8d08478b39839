package mcpserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// forYourHuman writes the room for the agent's human, to be shown as it is:
// their labels and time zone, the other side's words marked as theirs, and
// what is being asked of them.
func forYourHuman(v *app.View) string {
	var b strings.Builder
	tz := v.TimeZone
	if tz == nil {
		tz = time.UTC
	}
	if v.Title != "" {
		fmt.Fprintf(&b, "Negotiation: %q (the inviter's words).\n", v.Title)
	}
	deadline, _ := time.Parse(time.RFC3339, v.Deadline)
	switch v.State {
	case negotiation.StateDraft:
		b.WriteString("Waiting for the other side to accept the invitation.\n")
	case negotiation.StateAwaiting:
		switch {
		case v.Turn != nil && *v.Turn == "you":
			b.WriteString("It is your side's turn.\n")
		default:
			b.WriteString("Waiting for the other side.\n")
		}
	case negotiation.StateAgreed:
		b.WriteString("AGREED: both sides confirmed the terms below.\n")
	case negotiation.StateClosed:
		fmt.Fprintf(&b, "Closed (%s). Nothing was agreed.\n", closedWords[v.ClosedReason])
	}
	if !v.State.Terminal() {
		fmt.Fprintf(&b, "Deadline: %s (%s).\n", deadline.In(tz).Format("Mon 2 Jan 2006 15:04"), tz)
	}
	if c := v.Card; c != nil {
		who := "the other side"
		if c.TabledBy == v.Side {
			who = "your side"
		}
		if len(c.Options) > 1 {
			fmt.Fprintf(&b, "Options proposed by %s (one is to be chosen):\n", who)
		} else {
			fmt.Fprintf(&b, "Terms proposed by %s:\n", who)
		}
		for i, o := range c.Options {
			if len(c.Options) > 1 {
				fmt.Fprintf(&b, "Option %d:\n", i+1)
			}
			for _, f := range o.Fields {
				b.WriteString(cardLine(f))
			}
		}
		if c.NewSchema {
			b.WriteString("The other side uses a form you have not agreed under before: check each field.\n")
		}
	}
	if len(v.NoDealPossible) > 0 {
		fmt.Fprintf(&b, "No deal is possible on: %s (your limits and theirs cannot both be met; neither number is shown).\n", strings.Join(labels(v), ", "))
	}
	if p := v.PendingConfirmation; p != nil {
		fmt.Fprintf(&b, "Your confirmation is needed: %s. You were sent a link; you can also answer on the dashboard.\n", askWords(p))
	}
	return b.String()
}

func cardLine(f negotiation.CardField) string {
	label := f.Label
	if f.Theirs {
		label += " (their field)"
	}
	switch {
	case f.Missing:
		return fmt.Sprintf("- %s: not given\n", label)
	case f.Type == negotiation.TypeString:
		return fmt.Sprintf("- %s: %q (their words)\n", label, f.Text)
	}
	line := fmt.Sprintf("- %s: %s", label, f.Text)
	if f.Theirs && f.Type == negotiation.TypeEnum {
		line += " (their words)"
	}
	if len(f.Outside) > 0 {
		line += " — OUTSIDE YOUR LIMITS; confirming accepts it anyway"
	}
	if f.NoDeal {
		line += " — no deal possible on this field"
	}
	return line + "\n"
}

func labels(v *app.View) []string {
	out := make([]string, len(v.NoDealPossible))
	copy(out, v.NoDealPossible)
	if v.Card != nil {
		for i, n := range v.Card.NoDeal {
			if i < len(out) && n.Label != "" {
				out[i] = n.Label
			}
		}
	}
	return out
}

var closedWords = map[negotiation.ClosedReason]string{
	negotiation.ClosedRejected:  "the terms were rejected",
	negotiation.ClosedCancelled: "a side cancelled",
	negotiation.ClosedWithdrawn: "the invitation was withdrawn",
	negotiation.ClosedExpired:   "nobody accepted the invitation in time",
	negotiation.ClosedLapsed:    "the deadline passed",
}

func askWords(c *app.ConfirmationView) string {
	switch c.Verdict {
	case negotiation.VerdictApprove:
		return "approve the terms above"
	case negotiation.VerdictReject:
		return "reject the terms above (this ends the negotiation)"
	case negotiation.VerdictCancel:
		return "cancel the negotiation"
	case negotiation.VerdictPreapprove:
		return "accept whichever of the options the other side picks"
	}
	return string(c.Verdict)
}
