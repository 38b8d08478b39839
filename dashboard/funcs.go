package dashboard

import (
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

// funcsFor is what the templates of one language call: its words, and
// its patterns for moments.
func funcsFor(w *locale.Printer) template.FuncMap {
	return template.FuncMap{
		"t":         func(key locale.Key, args ...any) (string, error) { return t(w, key, args...) },
		"th":        func(key locale.Key, args ...any) (template.HTML, error) { return th(w, key, args...) },
		"lang":      w.Lang,
		"role":      func(r app.MemberRole) string { return w.T(locale.Key("role." + string(r))) },
		"countdown": func(at, now time.Time) string { return w.Left(at.Sub(now)) },
		"when":      func(t time.Time, zone any) (string, error) { return when(w, t, zone) },
		"value":     func(f negotiation.CardField, zone any) (string, error) { return value(w, f, zone) },
		"items":     func(f negotiation.CardField, zone any) ([]string, error) { return items(w, f, zone) },
		"limit":     w.Limit,
		"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"verdict":   w.Verdict,
		"asking":    func(v negotiation.Verdict) string { return w.T("ask.heading", w.Ask(v)) },
		"askAfter":  w.AskAfter,
		"confirmAs": func(v negotiation.Verdict) string { return w.T("ask.confirm", w.AskButton(v)) },
		"state":     w.State,
		"rank":      func(r app.Rank, ownerIsYou bool) string { return rankText(w, r, ownerIsYou) },
		"bound":     w.Bound,
		"noDeal":    func(n negotiation.CardNote) string { return w.NoDealNote(n) },
		"label":     w.Label, // a field's label as the reader reads it (the slots shorthand's in their words)
		"option":    w.Option,
		"input":     form.Input,
		"zones":     zoneGroups,
		"dict":      dict,
		"typeIs":    func(t negotiation.Type, s string) bool { return string(t) == s },
		"inList":    func(s string, list []string) bool { return slices.Contains(list, s) },
		"turn":      w.Turn,
		"yourTurn":  func(t *string) bool { return t != nil && *t == "you" },
		"refusal":   func(msg string, words negotiation.Words) string { return refusalText(w, msg, words) },
		"settled": func(status string, v negotiation.Verdict, why string) string {
			return w.Result(negotiation.Result(status), v, why)
		},
		"reason":      w.Reason,
		"hookfail":    w.HookFailure, // a webhook attempt's failure, stored in English
		"languages":   locale.Languages,
		"link":        link,
		"code":        func(s string) template.HTML { return wrap("code", s) },
		"strong":      func(s string) template.HTML { return wrap("strong", s) },
		"quoted":      func(s string) template.HTML { return `<span class="quoted their-words">` + escape(s) + `</span>` },
		"roundSpan":   func(n int) template.HTML { return template.HTML(fmt.Sprintf("<span data-round>%d</span>", n)) },
		"pickLabel":   func(options int) string { return w.T(pickKey(options)) },
		"leftWords":   func() (string, error) { return leftWords(w) },
		"static":      staticURL,
		"hookStatus":  func(s string) string { return hookStatus(w, s) },
		"audit":       func(a app.AuditAction) string { return w.T(locale.Key("audit." + a)) },
		"auditDetail": w.AuditDetail,
		"auditActor":  func(e app.AuditEntry) string { return auditActor(w, e) },
		"auditValue": func(e app.AuditEntry, name, value string, zone any) (string, error) {
			return auditValue(w, e, name, value, zone)
		},
		// rowName: a repeated field's row i (from 0) of n, named for a
		// screen reader; the label alone when the field has one row.
		"rowName": func(label string, i, n int) string {
			if n < 2 {
				return label
			}
			return w.T("a1117_row", label, i+1, n)
		},
	}
}

// when writes a moment in zone: a *time.Location (nil: UTC), or a
// guessedZone, beside UTC.
func when(w *locale.Printer, t time.Time, zone any) (string, error) {
	switch z := zone.(type) {
	case *time.Location:
		return w.Moment(t, z), nil
	case guessedZone:
		return w.MomentWithUTC(t, z.loc), nil
	}
	return "", fmt.Errorf("when: %T is not a time zone", zone)
}

// value writes a card field's values in zone, as when does.
func value(w *locale.Printer, f negotiation.CardField, zone any) (string, error) {
	switch z := zone.(type) {
	case *time.Location:
		return w.Value(f, z), nil
	case guessedZone:
		return w.ValueWithUTC(f, z.loc), nil
	}
	return "", fmt.Errorf("value: %T is not a time zone", zone)
}

// items writes each of a card field's values apart in zone, as value
// writes them: a repeated field's values, listed so they can be counted.
func items(w *locale.Printer, f negotiation.CardField, zone any) ([]string, error) {
	switch z := zone.(type) {
	case *time.Location:
		return w.Items(f, z), nil
	case guessedZone:
		return w.ItemsWithUTC(f, z.loc), nil
	}
	return nil, fmt.Errorf("items: %T is not a time zone", zone)
}

// leftWords are the countdown's words for the page's script, which keeps
// countdowns current: each with 909 where the count goes and 808 for the
// minutes of hours (numbers the printers write as they are; days: "one"
// for 1, "other" otherwise: the languages here need no more).
func leftWords(w *locale.Printer) (string, error) {
	const n = 909
	b, err := json.Marshal(map[string]string{
		"passed": w.Left(0), "minutes": w.T("left.minutes", n), "hours": w.T("left.hours", n, 808),
		"day": w.T("left.days", 1), "days": w.T("left.days", n),
	})
	return string(b), err
}

// pickKey is the word of the button that picks an option: "Pick this
// one" among several, "Approve" for the only one.
func pickKey(options int) locale.Key {
	if options > 1 {
		return "card.pick"
	}
	return "card.approve"
}

func escape(s string) template.HTML { return template.HTML(template.HTMLEscapeString(s)) }

func wrap(tag, s string) template.HTML {
	return "<" + template.HTML(tag) + ">" + escape(s) + "</" + template.HTML(tag) + ">"
}

// link is an <a> for th: href is one of the pages' own paths.
func link(href, text string) template.HTML {
	return `<a href="` + escape(href) + `">` + escape(text) + `</a>`
}

// t is a message of the catalog; a key it lacks fails the page rather
// than show a blank or the key.
func t(w *locale.Printer, key locale.Key, args ...any) (string, error) {
	if !locale.Has(key) {
		return "", fmt.Errorf("no message %q in the catalog", key)
	}
	return w.T(key, args...), nil
}

// th is t for a message with markup in its arguments (a link, a quoted
// party's words): the message is escaped, and each argument too unless it
// is template.HTML already.
func th(w *locale.Printer, key locale.Key, args ...any) (template.HTML, error) {
	marks := make([]any, len(args))
	for i := range args {
		marks[i] = fmt.Sprintf("\x02%d\x03", i)
	}
	s, err := t(w, key, marks...)
	if err != nil {
		return "", err
	}
	s = template.HTMLEscapeString(s)
	for i, a := range args {
		h, ok := a.(template.HTML)
		if !ok {
			h = template.HTML(template.HTMLEscapeString(fmt.Sprint(a)))
		}
		s = strings.Replace(s, fmt.Sprintf("\x02%d\x03", i), string(h), 1)
	}
	return template.HTML(s), nil
}

// refusalText says plainly why an invitation cannot be answered.
func refusalText(w *locale.Printer, msg string, words negotiation.Words) string {
	switch msg {
	case "the invitation was withdrawn":
		return w.T("refusal.withdrawn")
	case "the invitation has expired":
		return w.T("refusal.expired", int(negotiation.InvitationTTL/time.Hour))
	case "the invitation has been used already":
		return w.T("refusal.used")
	case "the deadline has passed":
		return w.T("refusal.deadline")
	}
	if words.Key == "web14_own_invitation" {
		return w.Refusal(msg, words) // it can be answered, by someone else
	}
	return w.T("refusal.other", w.Refusal(msg, words))
}

func rankText(w *locale.Printer, r app.Rank, ownerIsYou bool) string {
	switch r {
	case app.RankWaitingForYou:
		if ownerIsYou {
			return w.T("rank.waiting_for_you")
		}
		return w.T("rank.waiting_for_human")
	case app.RankYourTurn:
		return w.T("rank.your_agent")
	case app.RankTheirTurn:
		return w.T("turn.theirs")
	case app.RankAgreed:
		return w.State(negotiation.StateAgreed, "")
	}
	return w.T("rank.closed")
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

// nameThem names the other side of a room when it is no account's name:
// a person in the browser, or an account that was deleted.
func nameThem(w *locale.Printer, h *app.HumanRoom) {
	switch {
	case h.ThemPerson:
		h.Them = w.T("party.person")
	case h.ThemDeleted:
		h.Them = w.T("party.deleted_account")
	}
}
