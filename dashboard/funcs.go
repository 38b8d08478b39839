package dashboard

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
	"github.com/taasky/taasky/negotiation"
)

var templateFuncs = template.FuncMap{
	"countdown": countdown,
	"when":      when,
	"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"verdict":   verdictText,
	"asking":    askingText,
	"state":     stateText,
	"rank":      rankText,
	"bound":     boundText,
	"short":     shortHash,
	"input":     form.Input,
	"zones":     func() []string { return commonZones },
	"dict":      dict,
	"typeIs":    func(t negotiation.Type, s string) bool { return string(t) == s },
	"inList":    func(s string, list []string) bool { return contains(list, s) },
	"add":       func(a, b int) int { return a + b },
	"turn":      turnText,
	"refusal":   refusalText,
	"settled":   settledText,
}

func turnText(t *string) string {
	switch {
	case t == nil:
		return "nobody's turn"
	case *t == "you":
		return "your side's turn"
	}
	return "their turn"
}

// refusalText says plainly why an invitation cannot be answered.
func refusalText(msg string) string {
	switch msg {
	case "the invitation was withdrawn":
		return "This invitation was withdrawn by the person who sent it."
	case "the invitation has expired":
		return "This invitation has expired: nobody answered it within 72 hours."
	case "the invitation has been used already":
		return "This invitation has been answered already. If it was you, open the personal link you were given then."
	case "the deadline has passed":
		return "This invitation can no longer be answered: its deadline has passed."
	}
	return "This invitation can no longer be answered (" + msg + ")."
}

// settledText says what became of a confirmation.
func settledText(status string, v negotiation.Verdict, why string) string {
	switch status {
	case "applied":
		if v == "" {
			return "Done: your answer was applied."
		}
		return "Done: you " + verdictText(v) + "."
	case "declined":
		return "You declined. Your agent is told and the room is unchanged."
	case "void":
		return "Your answer applied to nothing: " + why + "."
	}
	return "Still waiting for your answer."
}

// countdown says how long is left until t, for a person.
func countdown(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "passed"
	case d < time.Hour:
		return fmt.Sprintf("%d min left", int(d.Minutes())+1)
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %02d min left", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d days left", int(d.Hours()/24))
}

// when writes a moment in loc (nil: UTC).
func when(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2 Jan 2006, 15:04 MST")
}

func verdictText(v negotiation.Verdict) string {
	switch v {
	case negotiation.VerdictOffer:
		return "offered terms"
	case negotiation.VerdictCounter:
		return "countered"
	case negotiation.VerdictNeedMoreDetail:
		return "asked for more detail"
	case negotiation.VerdictApprove:
		return "approved"
	case negotiation.VerdictReject:
		return "rejected the terms"
	case negotiation.VerdictCancel:
		return "cancelled"
	case negotiation.VerdictPreapprove:
		return "confirmed that any option is fine"
	}
	return string(v)
}

// askingText is what a pending confirmation asks the human.
func askingText(v negotiation.Verdict) string {
	switch v {
	case negotiation.VerdictApprove:
		return "Your agent asks you to approve these terms"
	case negotiation.VerdictReject:
		return "Your agent asks you to reject these terms and close the negotiation"
	case negotiation.VerdictCancel:
		return "Your agent asks you to withdraw: the negotiation closes for both sides"
	case negotiation.VerdictPreapprove:
		return "Your agent asks you to confirm that any of these options is fine: the other side's pick agrees at once"
	}
	return "Your agent asks you to confirm"
}

func stateText(s negotiation.State, reason negotiation.ClosedReason) string {
	switch s {
	case negotiation.StateDraft:
		return "invitation sent"
	case negotiation.StateAwaiting:
		return "negotiating"
	case negotiation.StateAgreed:
		return "agreed"
	case negotiation.StateClosed:
		return "closed (" + string(reason) + ")"
	}
	return string(s)
}

func rankText(r app.Rank, ownerIsYou bool) string {
	switch r {
	case app.RankWaitingForYou:
		if ownerIsYou {
			return "waiting for you"
		}
		return "waiting for its human"
	case app.RankYourTurn:
		return "your agent's turn"
	case app.RankTheirTurn:
		return "their turn"
	case app.RankAgreed:
		return "agreed"
	}
	return "closed"
}

func boundText(b negotiation.Bound) string {
	switch b {
	case negotiation.BoundMin:
		return "below your minimum"
	case negotiation.BoundMax:
		return "above your maximum"
	case negotiation.BoundOneOf:
		return "not one of the values you accept"
	case negotiation.BoundEquals:
		return "not what you require"
	}
	return string(b)
}

// shortHash is a subject_hash short enough to read: sha256:1a2b3c4d5e6f.
func shortHash(h negotiation.SubjectHash) string {
	s := string(h)
	if len(s) > 19 {
		return s[:19] + "…"
	}
	return s
}

// dict builds a map for a partial template: dict "k1" v1 "k2" v2.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict: odd arguments")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// commonZones are offered in time zone pickers; any IANA name typed in
// is accepted too.
var commonZones = strings.Fields(`UTC
Europe/London Europe/Dublin Europe/Lisbon Europe/Paris Europe/Berlin Europe/Madrid Europe/Rome
Europe/Amsterdam Europe/Brussels Europe/Zurich Europe/Vienna Europe/Stockholm Europe/Oslo
Europe/Copenhagen Europe/Helsinki Europe/Warsaw Europe/Prague Europe/Budapest Europe/Athens
Europe/Bucharest Europe/Istanbul Europe/Kyiv Europe/Moscow
Africa/Casablanca Africa/Lagos Africa/Cairo Africa/Johannesburg Africa/Nairobi
America/St_Johns America/Halifax America/New_York America/Toronto America/Chicago America/Mexico_City
America/Denver America/Phoenix America/Los_Angeles America/Vancouver America/Anchorage
America/Bogota America/Lima America/Caracas America/Santiago America/Sao_Paulo America/Argentina/Buenos_Aires
Pacific/Honolulu Pacific/Auckland Pacific/Fiji
Asia/Dubai Asia/Tehran Asia/Karachi Asia/Kolkata Asia/Kathmandu Asia/Dhaka Asia/Bangkok Asia/Jakarta
Asia/Singapore Asia/Hong_Kong Asia/Shanghai Asia/Taipei Asia/Manila Asia/Seoul Asia/Tokyo
Australia/Perth Australia/Adelaide Australia/Brisbane Australia/Sydney`)
