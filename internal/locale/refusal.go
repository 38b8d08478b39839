package locale

import (
	"strings"

	"github.com/taasky/taasky/negotiation"
)

// Refusal says a refusal in the printer's language: its rule from the
// catalog, after the place it names as the caller wrote it (a path such as
// "fee.amount" is the protocol's, never translated); message, the English,
// when the catalog has no words for it.
func (p *Printer) Refusal(message string, w negotiation.Words) string {
	rule, ok := p.rule(w)
	switch {
	case !ok:
		return message
	case w.At == "":
		return rule
	}
	return p.T("form.at", w.At, rule)
}

// Rule is a refusal's rule without its place, for a door that names the
// place in its reader's words (a field's label): from the catalog, or
// message without its place when the catalog has no words for it.
func (p *Printer) Rule(message string, w negotiation.Words) string {
	if rule, ok := p.rule(w); ok {
		return rule
	}
	if w.At != "" {
		return strings.TrimPrefix(message, w.At+": ")
	}
	return message
}

func (p *Printer) rule(w negotiation.Words) (string, bool) {
	if w.Key == "" || !Has(Key(w.Key)) {
		return "", false
	}
	return p.T(Key(w.Key), w.Args...), true
}

// AuditDetail names a detail of an audit log entry ("email", "role"):
// in words, or as its name when the catalog has none for it.
func (p *Printer) AuditDetail(name string) string {
	return p.of(Key("audit.detail."+name), name)
}
