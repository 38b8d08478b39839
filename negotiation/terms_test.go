package negotiation

import (
	"strings"
	"testing"
)

func TestTermsRefusals(t *testing.T) {
	s := mustSchema(t, allTypes)
	base := `"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office","fee":{"amount":"1","currency":"EUR"}`
	when := `"when":[{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"}]`
	cases := []struct {
		name, terms, msg string
	}{
		{"too large", `{"topic":"` + strings.Repeat("a", MaxTermsBytes) + `"}`, "terms are larger than 262144 bytes"},
		{"not JSON", `{"qty":1,}`, "terms: not valid JSON: expected a key at byte 9"},
		{"not an object", `[]`, "terms must be an object of fields, not a list"},
		{"51 values", `{` + base + `,"when":[` + strings.TrimSuffix(strings.Repeat(`{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"},`, 51), ",") + `]}`, "when: at most 50 values"},
		{"a repeated field as one value", `{` + base + `,"when":{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"}}`, "when: must be a non-empty list"},
		{"an element not an object", `{` + base + `,"when":[{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"},"soon"]}`, "when[1]: must be an object with start and end"},
		{"a fraction without digits", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00.Z","end":"2026-01-01T01:00:00Z"}}`, "slot.start: must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00"},
		{"ten digits of fraction", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00.1234567891Z","end":"2026-01-01T01:00:00Z"}}`, "slot.start: 2026-01-01T00:00:00.1234567891Z has more than 9 digits after the second's point (a moment is kept to the nanosecond)"},
		{"a bad end", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00Z","end":"2026-01-01 01:00:00Z"}}`, "slot.end: must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00"},
		{"an end that is no moment", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T25:00:00Z"}}`, "slot.end: 2026-01-01T25:00:00Z is not a real moment"},
		{"an offset without a colon", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00+0100","end":"2026-01-01T01:00:00Z"}}`, "slot.start: must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00"},
		{"money as a string", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":"1 EUR"}`, `fee: must be an object like {"amount": "1500.00", "currency": "EUR"}`},
		{"money with cents", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":"1","currency":"EUR","cents":0}}`, "fee: unknown key: cents (money has amount and currency)"},
		{"money without a currency", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":"1"}}`, `fee: must be an object like {"amount": "1500.00", "currency": "EUR"}`},
		{"a currency not a string", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":"1","currency":978}}`, "fee.currency: must be an ISO 4217 code like EUR"},
		{"a negative amount", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":"-1","currency":"EUR"}}`, "fee.amount: must not be negative"},
		{"an amount as a bool", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":true,"currency":"EUR"}}`, `fee.amount: must be a decimal string like "1500.00"`},
	}
	for _, c := range cases {
		_, err := s.ParseTerms([]byte(c.terms))
		wantErr(t, err, CodeInvalidTerms, c.msg)
	}
	// Nine digits of fraction are fine, and only non-zero ones are kept.
	terms := mustTerms(t, s, `{`+base+`,`+when+`,"slot":{"start":"2026-01-01T00:00:00.123456789+01:00","end":"2026-01-01T01:00:00.500Z"}}`)
	if !strings.Contains(string(terms.Canonical()), `"slot":{"end":"2026-01-01T01:00:00.5Z","start":"2025-12-31T23:00:00.123456789Z"}`) {
		t.Errorf("canonical %s", terms.Canonical())
	}
}
