package dashboard

import (
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

// auditActor is who made an audit log entry, as the reader reads it: the
// actor's email, or, for an entry of no person's, Taasky (it turned a
// failing webhook off) or an operator in the reader's words, never the
// English word stored for them.
func auditActor(w *locale.Printer, e app.AuditEntry) string {
	if e.ActorID != 0 || e.Actor != app.AuditOperator {
		return e.Actor
	}
	if e.Action == app.AuditWebhookDisabled {
		return "Taasky"
	}
	return w.T("tz16_audit_operator")
}

// auditResults are the words of an answer's result (confirmation.answered).
var auditResults = map[negotiation.Result]locale.Key{
	negotiation.ResultApplied:  "tz16_audit_result_applied",
	negotiation.ResultDeclined: "tz16_audit_result_declined",
	negotiation.ResultVoid:     "tz16_audit_result_void",
}

// auditValue is the value of an entry's detail name, as the reader reads
// it: a role or an answer's result in Taasky's words for it, a moment in
// loc (zone: as when takes it), named; anything else (an email, a name,
// a URL, an id, what a person typed) as it was stored.
func auditValue(w *locale.Printer, e app.AuditEntry, name, value string, zone any) (string, error) {
	switch {
	case name == "role" || (e.Action == app.AuditRoleChanged && (name == "from" || name == "to")):
		if k := locale.Key("role." + value); locale.Has(k) {
			return w.T(k), nil
		}
	case name == "result":
		if k, ok := auditResults[negotiation.Result(value)]; ok {
			return w.T(k), nil
		}
	case name == "failing_since":
		if t, err := time.Parse(time.RFC3339, value); err == nil {
			return when(w, t, zone)
		}
	case name == "by" && value == app.AuditByTaasky:
		return "Taasky", nil
	}
	return value, nil
}
