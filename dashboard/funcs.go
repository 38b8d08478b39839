package dashboard

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

// words is the vocabulary the pages are written in; a page has no
// language of its own yet.
var words = locale.English()

var templateFuncs = template.FuncMap{
	"t":         t,
	"role":      func(r app.MemberRole) string { return words.T(locale.Key("role." + string(r))) },
	"countdown": func(at, now time.Time) string { return words.Left(at.Sub(now)) },
	"when":      words.Moment,
	"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"verdict":   words.Verdict,
	"asking":    func(v negotiation.Verdict) string { return words.T("ask.heading", words.Ask(v)) },
	"askAfter":  words.AskAfter,
	"confirmAs": func(v negotiation.Verdict) string { return words.T("ask.confirm", words.AskButton(v)) },
	"state":     words.State,
	"rank":      rankText,
	"bound":     words.Bound,
	"noDeal":    func(label string) string { return words.NoDeal([]string{label}) },
	"option":    words.Option,
	"short":     shortHash,
	"input":     form.Input,
	"zones":     func() []string { return commonZones },
	"dict":      dict,
	"typeIs":    func(t negotiation.Type, s string) bool { return string(t) == s },
	"inList":    func(s string, list []string) bool { return contains(list, s) },
	"add":       func(a, b int) int { return a + b },
	"turn":      words.Turn,
	"yourTurn":  func(t *string) bool { return t != nil && *t == "you" },
	"refusal":   refusalText,
	"settled":   settledText,
}

// t is a message of the catalog; a key it lacks fails the page rather
// than show a blank or the key.
func t(key locale.Key, args ...any) (string, error) {
	if !locale.Has(key) {
		return "", fmt.Errorf("no message %q in the catalog", key)
	}
	return words.T(key, args...), nil
}

// refusalText says plainly why an invitation cannot be answered.
func refusalText(msg string) string {
	switch msg {
	case "the invitation was withdrawn":
		return words.T("refusal.withdrawn")
	case "the invitation has expired":
		return words.T("refusal.expired", int(negotiation.InvitationTTL/time.Hour))
	case "the invitation has been used already":
		return words.T("refusal.used")
	case "the deadline has passed":
		return words.T("refusal.deadline")
	}
	return words.T("refusal.other", msg)
}

// settledText says what became of a confirmation.
func settledText(status string, v negotiation.Verdict, why string) string {
	return words.Result(negotiation.Result(status), v, why)
}

func rankText(r app.Rank, ownerIsYou bool) string {
	switch r {
	case app.RankWaitingForYou:
		if ownerIsYou {
			return words.T("rank.waiting_for_you")
		}
		return words.T("rank.waiting_for_human")
	case app.RankYourTurn:
		return words.T("rank.your_agent")
	case app.RankTheirTurn:
		return words.T("turn.theirs")
	case app.RankAgreed:
		return words.State(negotiation.StateAgreed, "")
	}
	return words.T("rank.closed")
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

// nameThem names the other side of a room whose account was deleted.
func nameThem(h *app.HumanRoom) {
	if h.ThemDeleted {
		h.Them = words.T("party.deleted_account")
	}
}
