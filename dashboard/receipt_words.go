package dashboard

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/receipt"
)

// receiptWords is a receipt's facts in words, in the reader's zone: what
// the printable page and /verify show.
type receiptWords struct {
	Room        string
	AgreedAt    string
	Sides       []receiptSideWords
	Terms       []receiptTerm
	SubjectHash string
	Log         string
	Issued      string
}

type receiptSideWords struct {
	Heading     string
	Account     string
	Confirmed   string
	Preapproved bool
}

// receiptTerm is one agreed field: its name (the terms' own key) and value;
// a repeated field's values also one by one (Items), to list them.
type receiptTerm struct {
	Field, Value string
	Items        []string
}

func wordsOfReceipt(words *locale.Printer, r *receipt.Receipt, loc *time.Location) *receiptWords {
	w := &receiptWords{
		Room:        words.T("receipt.room_untitled", r.Room.ID),
		AgreedAt:    words.T("receipt.agreed_at", words.Moment(r.Room.AgreedAt, loc)),
		Terms:       termsInWords(words, r.Terms, loc),
		SubjectHash: words.T("receipt.subject_hash", r.SubjectHash),
		Log:         words.T("receipt.log", r.Log.Events, r.Log.Head),
		Issued:      words.T("receipt.issued", words.Moment(r.IssuedAt, loc), r.Issuer, r.KeyID),
	}
	if r.Room.Title != "" {
		w.Room = words.T("receipt.room", r.Room.ID, r.Room.Title)
	}
	for i, p := range []receipt.Party{r.Parties.A, r.Parties.B} {
		s := receiptSideWords{Heading: words.T("receipt.side_a"), Account: words.T("receipt.no_account"),
			Preapproved: p.Confirmation.Verdict == "preapprove"}
		if i == 1 {
			s.Heading = words.T("receipt.side_b")
		}
		if p.Account != "" {
			s.Account = words.T("receipt.account", p.Account)
		}
		how, when := channelWords(words, p.Confirmation.Channel), words.Moment(p.Confirmation.At, loc)
		if p.Confirmation.By != "" {
			s.Confirmed = words.T("receipt.confirmed_by", p.Confirmation.By, how, when)
		} else {
			s.Confirmed = words.T("receipt.confirmed", how, when)
		}
		w.Sides = append(w.Sides, s)
	}
	return w
}

func channelWords(words *locale.Printer, c receipt.Channel) string {
	switch c {
	case receipt.ChannelEmail:
		return words.T("receipt.channel.email")
	case receipt.ChannelPush:
		return words.T("receipt.channel.push")
	case receipt.ChannelInvitation:
		return words.T("receipt.channel.invitation")
	}
	return words.T("receipt.channel.dashboard")
}

// termsInWords lists the agreed terms field by field, each value as the
// card writes it for the reader (Printer.Value): a time range in their
// zone, a day and yes/no in their words, a money amount with its currency,
// a repeated field's values one after the other; what a party wrote and
// numbers as written. A value is read by its shape, and named by its
// field's key: the receipt carries both sides' schemas, whose types agree
// but whose labels are each side's own words.
func termsInWords(words *locale.Printer, raw json.RawMessage, loc *time.Location) []receiptTerm {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return []receiptTerm{{Value: string(raw)}}
	}
	var out []receiptTerm
	for name, v := range fields {
		value, items := valueInWords(words, v, loc)
		out = append(out, receiptTerm{Field: name, Value: value, Items: items})
	}
	slices.SortFunc(out, func(a, b receiptTerm) int { return strings.Compare(a.Field, b.Field) })
	return out
}

// valueInWords writes one field's value: a repeated field's (a JSON array)
// each in turn, joined as the card joins them, and apart (items), as the
// card lists them: one value "a; b" is other terms than two, "a" and "b".
func valueInWords(words *locale.Printer, v json.RawMessage, loc *time.Location) (string, []string) {
	var list []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) && json.Unmarshal(v, &list) == nil {
		parts := make([]string, len(list))
		for i, e := range list {
			parts[i] = oneValueInWords(words, e, loc)
		}
		return strings.Join(parts, "; "), parts
	}
	one := oneValueInWords(words, v, loc)
	return one, []string{one}
}

func oneValueInWords(words *locale.Printer, v json.RawMessage, loc *time.Location) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		// A date field's value is a day; a text that is exactly one names
		// the same day.
		if day, err := time.Parse(time.DateOnly, s); err == nil {
			return words.Day(day)
		}
		return s
	}
	var money struct{ Amount, Currency string }
	var span struct{ Start, End time.Time }
	switch string(bytes.TrimSpace(v)) {
	case "true":
		return words.T("value.true")
	case "false":
		return words.T("value.false")
	}
	switch {
	case json.Unmarshal(v, &money) == nil && money.Amount != "" && money.Currency != "":
		return words.Money(money.Amount, money.Currency)
	case json.Unmarshal(v, &span) == nil && !span.Start.IsZero() && !span.End.IsZero():
		return words.Range(span.Start, span.End, loc)
	}
	var compact bytes.Buffer
	if json.Compact(&compact, v) != nil {
		return string(v)
	}
	return compact.String()
}

// problemWords says in one sentence why a receipt is not valid: the
// check that failed in the reader's words (receiptChecks), the values it
// quotes as they were.
func problemWords(words *locale.Printer, err error) string {
	detail := err.Error()
	if e, ok := err.(*receipt.Error); ok {
		detail = e.Detail
		if k, ok := receiptChecks[e.Check]; ok {
			detail = words.T(k, e.Values...)
		}
	}
	var key locale.Key
	switch receipt.ProblemOf(err) {
	case receipt.ProblemForeign:
		key = "verify.problem.foreign"
	case receipt.ProblemUnknownKey:
		key = "verify.problem.unknown_key"
	case receipt.ProblemTampered:
		return words.T("verify.invalid", words.T("verify.problem.tampered"))
	default:
		key = "verify.problem.malformed"
	}
	return words.T("verify.invalid", words.T(key, detail))
}

// receiptChecks are the words of each check of receipt.Verify
// (receipt.Error's Check), whose Detail is English.
var receiptChecks = map[string]locale.Key{
	"size":             "verify28_size",
	"form":             "verify28_form",
	"signatures":       "verify28_signatures",
	"header_typ":       "verify28_header_typ",
	"base64_header":    "verify28_base64_header",
	"base64_payload":   "verify28_base64_payload",
	"base64_signature": "verify28_base64_signature",
	"json":             "verify28_json",
	"payload_typ":      "verify28_payload_typ",
	"facts":            "verify28_facts",
	"claims_issuer":    "verify28_claims_issuer",
	"kid":              "verify28_kid",
	"issuer":           "verify28_issuer",
	"payload_kid":      "verify28_payload_kid",
}
