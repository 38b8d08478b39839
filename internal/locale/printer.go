package locale

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"github.com/taasky/taasky/negotiation"
)

// Key names a message in the catalog.
type Key string

// A Language is one Taasky speaks: its BCP 47 tag, its name in itself,
// its text by key (one file per language, in english.go's order), its
// date patterns and its number separators.
type Language struct {
	Tag     string
	Name    string
	text    map[Key]catalog.Message
	dates   *dates
	numbers *numbers
}

// languages are the catalog's, English first (the source and the fallback).
var languages = []Language{
	{"en", "English", englishText, &englishDates, &englishNumbers},
	{"de", "Deutsch", germanText, &germanDates, &germanNumbers},
	{"fr", "Français", frenchText, &frenchDates, &frenchNumbers},
	{"es", "Español", spanishText, &spanishDates, &spanishNumbers},
	{"ja", "日本語", japaneseText, &japaneseDates, &japaneseNumbers},
}

// Languages lists the languages Taasky speaks, English first.
func Languages() []Language { return slices.Clone(languages) }

// Supported returns the language tag as the catalog has it, or an error
// that names the languages there are.
func Supported(tag string) (string, error) {
	tag = strings.TrimSpace(tag)
	for _, l := range languages {
		if strings.EqualFold(tag, l.Tag) {
			return l.Tag, nil
		}
	}
	tags := make([]string, len(languages))
	for i, l := range languages {
		tags[i] = l.Tag
	}
	return "", fmt.Errorf("language: must be one of %s (got %q)", strings.Join(tags, ", "), tag)
}

// messages is every language's catalog; English is the fallback.
var messages = newCatalog()

func newCatalog() *catalog.Builder {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for _, l := range languages {
		tag := language.MustParse(l.Tag)
		for k, m := range l.text {
			if err := b.Set(tag, string(k), m); err != nil {
				panic(fmt.Sprintf("locale: %s %s: %v", l.Tag, k, err)) // a malformed entry in its file
			}
		}
	}
	return b
}

// A Printer writes Taasky's words in one language. It is safe for
// concurrent use.
type Printer struct {
	p       *message.Printer
	lang    string
	dates   *dates
	numbers *numbers
}

// NewPrinter returns a Printer for the first of the language preferences
// that the catalog has (tags such as "de-CH", or an Accept-Language
// value; "" is skipped; a POSIX-style "de_DE", as some identity
// providers send their locale claim, is read as "de-DE"); a language the
// catalog lacks gets the closest one it has, English at worst.
func NewPrinter(prefs ...string) *Printer {
	var tags []language.Tag
	for _, pref := range prefs {
		tags = append(tags, acceptLanguage(pref)...)
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		i = 0
	}
	return printers[i]
}

// acceptLanguage reads a language preference (an Accept-Language value,
// or one tag) entry by entry, the most wanted first: an entry x/text
// cannot read is left out, not the whole value with it ("fr-CH,
// zz;q=0.1" was English), and one with a region or script it does not
// know is its language ("de-YA": German). Tags and the weight's name are
// read in either case ("fr;Q=0.5", RFC 9110 §12.4.2), which x/text does
// not do for the weight.
func acceptLanguage(pref string) []language.Tag {
	type weighted struct {
		tag language.Tag
		q   float32
	}
	var ws []weighted
	for entry := range strings.SplitSeq(strings.ToLower(strings.ReplaceAll(pref, "_", "-")), ",") {
		tags, qs, err := language.ParseAcceptLanguage(entry)
		if err != nil {
			tag, weight, weighted := strings.Cut(entry, ";")
			lang, _, _ := strings.Cut(strings.TrimSpace(tag), "-")
			if weighted {
				lang += ";" + weight
			}
			tags, qs, _ = language.ParseAcceptLanguage(lang)
		}
		for i := range tags {
			ws = append(ws, weighted{tags[i], qs[i]})
		}
	}
	slices.SortStableFunc(ws, func(a, b weighted) int { return cmp.Compare(b.q, a.q) })
	tags := make([]language.Tag, len(ws))
	for i, w := range ws {
		tags[i] = w.tag
	}
	return tags
}

// printers holds one Printer per language of the catalog, in the order of
// languages: a Printer is read-only once made, so NewPrinter need not
// parse a tag and set up x/text's printer at each call (a third of its
// cost, 24 → 18 allocations).
var printers = func() []*Printer {
	ps := make([]*Printer, len(languages))
	for i, l := range languages {
		ps[i] = &Printer{p: message.NewPrinter(language.MustParse(l.Tag), message.Catalog(messages)), lang: l.Tag, dates: l.dates, numbers: l.numbers}
	}
	return ps
}()

var matcher = func() language.Matcher {
	tags := make([]language.Tag, len(languages))
	for i, l := range languages {
		tags[i] = language.MustParse(l.Tag)
	}
	return language.NewMatcher(tags)
}()

// Lang is the printer's language tag: "de".
func (p *Printer) Lang() string { return p.lang }

// English is the Printer of the catalog's source language.
func English() *Printer { return englishPrinter }

var englishPrinter = NewPrinter("en")

// Has reports whether the catalog has key.
func Has(key Key) bool {
	_, ok := englishText[key]
	return ok
}

// T writes the message key with args. A key the catalog lacks is written
// as itself, so that it shows (and a test catches it) instead of a blank.
func (p *Printer) T(key Key, args ...any) string {
	if !Has(key) {
		return string(key)
	}
	return p.p.Sprintf(string(key), args...)
}

// of writes the message key, or fallback when the catalog lacks it (a
// protocol value newer than the catalog is shown as its name).
func (p *Printer) of(key Key, fallback string, args ...any) string {
	if !Has(key) {
		return fallback
	}
	return p.p.Sprintf(string(key), args...)
}

// State is a room's state in words; a closed room's says why it closed.
func (p *Printer) State(s negotiation.State, reason negotiation.ClosedReason) string {
	if s == negotiation.StateClosed {
		return p.T("state.closed", p.ClosedReason(reason))
	}
	return p.of(Key("state."+s), string(s))
}

// ClosedReason says why a room closed.
func (p *Printer) ClosedReason(r negotiation.ClosedReason) string {
	if r == negotiation.ClosedExpired {
		return p.T("closed.expired", int(negotiation.InvitationTTL/time.Hour))
	}
	return p.of(Key("closed."+r), string(r))
}

// Bound names a limit a value falls outside of.
func (p *Printer) Bound(b negotiation.Bound) string {
	return p.of(Key("bound."+b), string(b))
}

// Outside flags a value outside the reader's limits, by bound names only.
func (p *Printer) Outside(bs []negotiation.Bound) string {
	words := make([]string, len(bs))
	for i, b := range bs {
		words[i] = p.Bound(b)
	}
	return p.T("bound.outside", strings.Join(words, ", "))
}

// Verdict is what a side did, as a predicate: "countered".
func (p *Printer) Verdict(v negotiation.Verdict) string {
	return p.of(Key("verdict."+v), string(v))
}

// Ask is what a confirmation of v asks the human to do: "approve these
// terms".
func (p *Printer) Ask(v negotiation.Verdict) string {
	return p.of(Key("ask."+v), string(v))
}

// AskQuestion is Ask as a question: "Approve these terms?".
func (p *Printer) AskQuestion(v negotiation.Verdict) string {
	return p.of(Key("ask.question."+v), string(v)+"?")
}

// AskAfter says what follows from confirming v, or "" when the verdict
// says it all (approve) or the card c does (Agrees: confirming agrees the
// room; c may be nil).
func (p *Printer) AskAfter(v negotiation.Verdict, c *negotiation.Card) string {
	if c != nil && c.Agrees {
		return ""
	}
	return p.of(Key("ask.after."+v), "")
}

// AskButton is the confirm button's word for v: "withdraw".
func (p *Printer) AskButton(v negotiation.Verdict) string {
	return p.of(Key("ask.button."+v), string(v))
}

// Result says what became of a human's answer to a confirmation of v
// (v may be ""); why is why it came out void. A status that is no Result
// yet ("" or "pending") is still waiting.
func (p *Printer) Result(r negotiation.Result, v negotiation.Verdict, why string) string {
	switch r {
	case negotiation.ResultApplied:
		if v != "" {
			return p.T("result.applied_verdict", p.Verdict(v))
		}
	case negotiation.ResultVoid:
		return p.T("result.void", p.Reason(why))
	}
	return p.of(Key("result."+r), p.T("result.waiting"))
}

// Reason is a reason stored in English (why a confirmation came out void)
// in the printer's language, when it is a text of the English catalog;
// anything else is shown as stored.
func (p *Printer) Reason(english string) string {
	if k, ok := englishTexts()[english]; ok {
		return p.T(k)
	}
	return english
}

// englishTexts finds the key of each English text that takes no argument.
var englishTexts = sync.OnceValue(func() map[string]Key {
	en := NewPrinter("en")
	m := map[string]Key{}
	for k := range englishText {
		if s := en.T(k); !strings.Contains(s, "%!") {
			if have, dup := m[s]; !dup || k < have {
				m[s] = k
			}
		}
	}
	return m
})

// Turn says whose turn it is, from a view's turn ("you", "them", or nil).
func (p *Printer) Turn(turn *string) string {
	switch {
	case turn == nil:
		return p.T("turn.nobody")
	case *turn == "you":
		return p.T("turn.yours")
	}
	return p.T("turn.theirs")
}

// Option names option i (from 0) of n on a card: "Option 2 of 3".
func (p *Printer) Option(i, n int) string { return p.T("card.option", i+1, n) }

// Label is a field's label as a person reads it: the slots shorthand's
// field (negotiation.Field.Shorthand) by Taasky's name for it, in the
// reader's language; any other as its schema wrote it.
func (p *Printer) Label(label string, shorthand bool) string {
	if shorthand {
		return p.T("slots11_meeting_time")
	}
	return label
}

// NoDeal says that the two sides' limits cannot both be met on the fields
// labelled labels.
func (p *Printer) NoDeal(labels []string) string {
	return p.T("card.no_deal", strings.Join(labels, ", "))
}

// NoDealNote is NoDeal of the fields notes names, followed, when every one
// of them may be left out (CardNote.Optional), by the sentence that terms
// without them can still agree.
func (p *Printer) NoDealNote(notes ...negotiation.CardNote) string {
	if out := p.NoDealLeftOut(notes); out != "" {
		return p.NoDeal(p.Notes(notes)) + " " + out
	}
	return p.NoDeal(p.Notes(notes))
}

// Notes is the labels of notes as the reader reads them, a label of the
// other side's marked as theirs (CardNote.Theirs).
func (p *Printer) Notes(notes []negotiation.CardNote) []string {
	labels := make([]string, len(notes))
	for i, n := range notes {
		labels[i] = p.Label(n.Label, n.Shorthand)
		if n.Theirs && !n.Shorthand {
			labels[i] = p.T("human.their_field", labels[i])
		}
	}
	return labels
}

// NoDealLeftOut is the sentence NoDealNote adds ("" when a field of notes
// may not be left out), for a message that names the fields itself.
func (p *Printer) NoDealLeftOut(notes []negotiation.CardNote) string {
	if len(notes) == 0 {
		return ""
	}
	for _, n := range notes {
		if !n.Optional {
			return ""
		}
	}
	return p.T("nodeal13_left_out", strings.Join(p.Notes(notes), ", "))
}

// Until says how long until a moment d away, in a sentence: "in about 3
// hours".
func (p *Printer) Until(d time.Duration) string {
	switch {
	case d <= 0:
		return p.T("until.now")
	case d < 90*time.Minute:
		return p.T("until.minutes", int(d.Round(time.Minute)/time.Minute))
	case d < 48*time.Hour:
		return p.T("until.hours", int(d.Round(time.Hour)/time.Hour))
	}
	return p.T("until.days", int(d.Round(24*time.Hour)/(24*time.Hour)))
}

// Left says how long is left until a deadline d away, in a countdown:
// "3 h 05 min left". The minutes are rounded up, so that "1 min left"
// lasts until the moment itself.
func (p *Printer) Left(d time.Duration) string {
	switch {
	case d <= 0:
		return p.T("left.passed")
	case d < time.Hour:
		return p.T("left.minutes", int(d.Minutes())+1)
	case d < 48*time.Hour:
		return p.T("left.hours", int(d.Hours()), int(d.Minutes())%60)
	}
	return p.T("left.days", int(d.Hours()/24))
}
