package trust

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// richSchema has a field of every type, to aim bad terms at.
const richSchema = `{"when":{"type":"timerange","label":"When"},"day":{"type":"date","label":"Day"},` +
	`"fee":{"type":"money","label":"Fee","currency":"EUR"},"qty":{"type":"int","label":"Quantity"},` +
	`"ok":{"type":"bool","label":"Confirmed"},"place":{"type":"enum","label":"Where","values":["office","video"]},` +
	`"note":{"type":"string","label":"Note","max_len":20,"optional":true},` +
	`"tags":{"type":"string","label":"Tags","repeated":true,"optional":true},` +
	`"price":{"type":"money","label":"Price","optional":true}}`

// goodTerms are valid terms of richSchema; with replaces (or, with a nil
// value, removes) fields and returns them as JSON.
func goodTerms(with map[string]string) string {
	fields := map[string]string{
		"when": `{"start":"2027-03-01T10:00:00+01:00","end":"2027-03-01T11:00:00+01:00"}`,
		"day":  `"2027-03-01"`, "fee": `{"amount":"100.00","currency":"EUR"}`, "qty": `3`, "ok": `true`, "place": `"video"`,
	}
	for k, v := range with {
		if v == "" {
			delete(fields, k)
		} else {
			fields[k] = v
		}
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		fmt.Fprintf(&b, "%s:%s", key, fields[k])
	}
	b.WriteByte('}')
	return b.String()
}

// badCase is one malformed call: its tool, its raw arguments ($TA, $TB,
// $INV, $H stand for a's and b's room tokens, a live invitation's code and
// the hash on the table) and a piece of the one line it must be told.
type badCase struct {
	by    string // "a": sent by a's agent; else b's
	group string
	tool  string
	args  string
	want  string
}

type toolArg struct {
	name, kind string // kind: string, bool, object, array
}

var toolArgs = map[string]struct {
	base string // valid arguments around the one under test
	args []toolArg
}{
	"negotiation_open": {`{"subject_schema":` + richSchema + `}`, []toolArg{{"subject_schema", "object"}, {"limits", "object"},
		{"subject", "object"}, {"options", "array"}, {"slots", "array"}, {"preapprove", "bool"}, {"title", "string"},
		{"deadline", "string"}, {"invite_email", "string"}}},
	"negotiation_join": {`{"invite_code":"$INV","subject_schema":` + richSchema + `}`, []toolArg{{"invite_code", "string"},
		{"invite_url", "string"}, {"subject_schema", "object"}, {"limits", "object"}}},
	"negotiation_list":    {`{}`, []toolArg{{"room_tokens", "array"}, {"cursor", "string"}}},
	"negotiation_read":    {`{"room_token":"$TB"}`, []toolArg{{"room_token", "string"}}},
	"negotiation_propose": {`{"room_token":"$TB","verdict":"counter","subject":` + goodTerms(map[string]string{"qty": "4"}) + `}`, []toolArg{{"room_token", "string"}, {"verdict", "string"}, {"subject", "object"}, {"options", "array"}, {"fields", "array"}}},
	"negotiation_respond": {`{"room_token":"$TB","verdict":"approve","subject_hash":"$H"}`, []toolArg{{"room_token", "string"}, {"verdict", "string"}, {"subject_hash", "string"}}},
	"negotiation_cancel":  {`{"room_token":"$TB"}`, []toolArg{{"room_token", "string"}}},
}

// withArg sets one argument of a JSON object given as text.
func withArg(base, name, value string) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(base), &m); err != nil {
		panic(err)
	}
	if value == "" {
		delete(m, name)
	} else {
		m[name] = json.RawMessage(value)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("%s=%s: %v", name, value, err))
	}
	return string(b)
}

// badCases is the table: every tool and argument with the wrong JSON type,
// then terms, schemas and limits that break each rule, injection strings
// where a token or a code goes, and edge cases of moments and money.
func badCases() []badCase {
	var cs []badCase
	wrong := map[string]string{"string": `7`, "bool": `"yes"`, "object": `"x"`, "array": `"x"`}
	others := []string{`1.5`, `true`, `[]`, `{}`, `"s"`}
	kindOf := map[string]string{`1.5`: "number", `true`: "bool", `[]`: "array", `{}`: "object", `"s"`: "string"}
	tools := make([]string, 0, len(toolArgs))
	for tool := range toolArgs {
		tools = append(tools, tool)
	}
	sort.Strings(tools)
	for _, tool := range tools {
		ta := toolArgs[tool]
		for _, a := range ta.args {
			want := a.name
			if a.name == "subject" {
				want = "terms must be an object of fields" // terms are what the rules call them
			}
			cs = append(cs, badCase{"", "wrong JSON type", tool, withArg(ta.base, a.name, wrong[a.kind]), want})
			for _, v := range others {
				if kindOf[v] == a.kind {
					continue // the right type
				}
				cs = append(cs, badCase{"", "wrong JSON type", tool, withArg(ta.base, a.name, v), want})
			}
		}
		cs = append(cs, badCase{"", "unknown argument", tool, withArg(ta.base, "sneaky", `1`), "unknown argument: sneaky"})
	}
	for _, tool := range []string{"negotiation_read", "negotiation_propose", "negotiation_open"} {
		for _, v := range []string{`[1]`, `"args"`, `7`} {
			cs = append(cs, badCase{"", "arguments not an object", tool, v, "arguments"})
		}
	}

	counter := func(group, subject, want string) {
		cs = append(cs, badCase{"", group, "negotiation_propose", `{"room_token":"$TB","verdict":"counter","subject":` + subject + `}`, want})
	}
	when := func(start, end string) string {
		st, _ := json.Marshal(start)
		en, _ := json.Marshal(end)
		return goodTerms(map[string]string{"when": fmt.Sprintf(`{"start":%s,"end":%s}`, st, en)})
	}
	for _, c := range []struct{ start, end, want string }{
		{"2027-03-01T10:00:00", "2027-03-01T11:00:00+01:00", "when.start: must be an RFC 3339 moment"},
		{"2027-03-01 10:00:00Z", "2027-03-01T11:00:00Z", "when.start: must be an RFC 3339 moment"},
		{"2027-03-01t10:00:00z", "2027-03-01T11:00:00Z", "when.start"},
		{"2027-03-01T24:00:00Z", "2027-03-02T01:00:00Z", "when.start"},
		{"2027-02-29T10:00:00Z", "2027-03-01T11:00:00Z", "when.start"},
		{"2027-03-01T10:00:60Z", "2027-03-01T11:00:00Z", "when.start"},
		{"2027-03-01T10:00:00+24:00", "2027-03-01T11:00:00Z", "when.start"},
		{"2027-03-01T10:00:00+02", "2027-03-01T11:00:00Z", "when.start"},
		{"2027-03-01T10:00:00+0200", "2027-03-01T11:00:00Z", "when.start"},
		{"2027-03-01T10:00:00−02:00", "2027-03-01T11:00:00Z", "when.start"},
		{"2027-03-01T10:00:00.1234567890Z", "2027-03-01T11:00:00Z", "when.start"},
		{"2027-03-01T10:00Z", "2027-03-01T11:00:00Z", "when.start"},
		{"27-03-01T10:00:00Z", "2027-03-01T11:00:00Z", "when.start"},
		{"10000-03-01T10:00:00Z", "10000-03-01T11:00:00Z", "when.start"},
		{"0000-12-31T22:00:00-01:00", "0001-01-01T11:00:00Z", "out of range"},
		{"9999-12-31T23:30:00-01:00", "9999-12-31T23:59:00-01:00", "out of range"},
		{"2027-03-01T11:00:00Z", "2027-03-01T10:00:00Z", "when: end must be after start"},
		{"2027-03-01T10:00:00Z", "2027-03-01T10:00:00Z", "when: end must be after start"},
		{"2027-03-01T12:00:00+02:00", "2027-03-01T10:00:00Z", "when: end must be after start"},
		{"", "2027-03-01T11:00:00Z", "when.start"},
		{"2027-03-01T10:00:00Z\u0000", "2027-03-01T11:00:00Z", "when.start"},
		{"２０２７-03-01T10:00:00Z", "2027-03-01T11:00:00Z", "when.start"},
	} {
		counter("RFC 3339 edge", when(c.start, c.end), c.want)
	}
	counter("RFC 3339 edge", goodTerms(map[string]string{"when": `{"start":"2027-03-01T10:00:00Z"}`}), "when")
	counter("RFC 3339 edge", goodTerms(map[string]string{"when": `{"start":"2027-03-01T10:00:00Z","end":"2027-03-01T11:00:00Z","tz":"CET"}`}), "when: unknown key: tz")
	counter("RFC 3339 edge", goodTerms(map[string]string{"when": `"2027-03-01T10:00:00Z/2027-03-01T11:00:00Z"`}), "when: must be an object with start and end")
	counter("RFC 3339 edge", goodTerms(map[string]string{"when": `{"start":1798794000,"end":1798797600}`}), "when.start")
	for _, c := range []struct{ v, want string }{
		{`"2027-2-3"`, "day: must be a date like"}, {`"2027-02-29"`, "day: 2027-02-29 is not a calendar day"},
		{`"20270301"`, "day: must be a date like"}, {`"2027-03-01T00:00:00Z"`, "day: must be a date like"},
		{`"2027-13-01"`, "day"}, {`"2027-00-10"`, "day"}, {`"2027-04-31"`, "day"}, {`20270301`, "day"},
	} {
		counter("date edge", goodTerms(map[string]string{"day": c.v}), c.want)
	}
	money := func(amount, currency string) string {
		return goodTerms(map[string]string{"fee": fmt.Sprintf(`{"amount":%s,"currency":%s}`, amount, currency)})
	}
	for _, c := range []struct{ amount, currency, want string }{
		{`100.00`, `"EUR"`, `fee.amount: must be a decimal string like "1500.00", not a number`},
		{`"1e3"`, `"EUR"`, "fee"}, {`"1.005"`, `"EUR"`, "fee.amount: EUR has at most 2 decimals"}, {`"-5.00"`, `"EUR"`, "fee.amount: must not be negative"},
		{`"+5.00"`, `"EUR"`, "fee"}, {`" 5.00"`, `"EUR"`, "fee"}, {`"5.00 "`, `"EUR"`, "fee"}, {`"5."`, `"EUR"`, "fee"}, {`".5"`, `"EUR"`, "fee"},
		{`"05.00"`, `"EUR"`, "fee"}, {`"１２３"`, `"EUR"`, "fee"}, {`"NaN"`, `"EUR"`, "fee"}, {`"Infinity"`, `"EUR"`, "fee"},
		{`"5,00"`, `"EUR"`, "fee"}, {`"5 000"`, `"EUR"`, "fee"}, {`"5_000"`, `"EUR"`, "fee"}, {`"0x10"`, `"EUR"`, "fee"},
		{`"1234567890123456789"`, `"EUR"`, "fee.amount: at most 18 digits before the decimal point"}, {`""`, `"EUR"`, "fee"},
		{`"5.00"`, `"eur"`, "fee.currency"}, {`"5.00"`, `"EURO"`, "fee.currency"}, {`"5.00"`, `"USD"`, "fee.currency: must be EUR"},
		{`"5.00"`, `5`, "fee.currency"}, {`"5.00"`, `"ЕUR"`, "fee.currency"}, {`"-0.00"`, `"EUR"`, "fee"},
	} {
		counter("money edge", money(c.amount, c.currency), c.want)
	}
	price := func(amount, currency string) string {
		return goodTerms(map[string]string{"price": fmt.Sprintf(`{"amount":%q,"currency":%q}`, amount, currency)})
	}
	for _, c := range []struct{ amount, currency, want string }{
		{"5.5", "JPY", "price.amount: JPY has no decimals"}, {"1.0001", "BHD", "price.amount: BHD has at most 3 decimals"},
		{"5.00", "XAU", "price.currency"}, {"5.00", "HRK", "price.currency"}, {"5.00", "XXX", "price.currency"},
		{"5.00", "US$", "price.currency"}, {"5.00", "", "price.currency"},
	} {
		counter("money edge", price(c.amount, c.currency), c.want)
	}
	for _, c := range []struct{ v, want string }{
		{`1.0`, "qty: must be a whole number"}, {`1e2`, "qty: must be a whole number"}, {`"5"`, "qty: must be a whole number"},
		{`9007199254740993`, "qty: must be between"}, {`-9007199254740993`, "qty: must be between"}, {`null`, "qty: must not be null"},
	} {
		counter("int edge", goodTerms(map[string]string{"qty": c.v}), c.want)
	}
	for _, v := range []string{`"true"`, `1`, `"yes"`, `null`} {
		counter("bool edge", goodTerms(map[string]string{"ok": v}), "ok")
	}
	for _, c := range []struct{ v, want string }{
		{`"Video"`, `place: "Video" is not one of office, video`}, {`"vіdeo"`, "place"}, {`"video "`, "place"},
		{`"vid\u200beo"`, "place"}, {`1`, "place: must be one of office, video"}, {`["video"]`, "place"},
		{`"'; DROP TABLE rooms; --"`, "place"}, {`"{{.}}"`, "place"},
	} {
		counter("enum and homoglyph", goodTerms(map[string]string{"place": c.v}), c.want)
	}
	for _, c := range []struct{ v, want string }{
		{`"` + strings.Repeat("x", 21) + `"`, "note: at most 20 characters"},
		{`"a\u0000b"`, "note: control characters are not allowed"}, {`"a\u0007b"`, "note: control characters"},
		{`"a\u001b[31mred"`, "note: control characters"}, {`"a\u007fb"`, "note: control characters"},
		{`"a\u0085b"`, "note: control characters"}, {`"pay \u202eNABI"`, "note"}, {`"x\u2066y"`, "note"},
		{`"\ud800"`, "terms: not valid JSON: lone surrogate"}, {`7`, "note: must be a string"}, {`{"$gt":""}`, "note: must be a string"},
	} {
		counter("string edge", goodTerms(map[string]string{"note": c.v}), c.want)
	}
	counter("repeated edge", goodTerms(map[string]string{"tags": `[]`}), "tags: must be a non-empty list")
	counter("repeated edge", goodTerms(map[string]string{"tags": `"one"`}), "tags: must be a non-empty list")
	counter("repeated edge", goodTerms(map[string]string{"tags": `[` + strings.TrimSuffix(strings.Repeat(`"t",`, 51), ",") + `]`}), "tags: at most 50 values")
	counter("repeated edge", goodTerms(map[string]string{"tags": `["a",7]`}), "tags[1]")
	counter("terms shape", goodTerms(map[string]string{"extra": `1`}), "unknown field: extra")
	counter("terms shape", goodTerms(map[string]string{"qty": ""}), "missing required field: qty")
	counter("terms shape", `{"qty":3,"qty":4}`, "qty")
	counter("terms shape", `"tomorrow at ten"`, "terms must be an object of fields, not a string")
	counter("terms shape", `[`+goodTerms(nil)+`]`, "terms must be an object of fields")
	counter("terms shape", strings.Repeat(`{"a":`, 40)+`1`+strings.Repeat(`}`, 40), "terms")
	counter("terms shape", goodTerms(map[string]string{"note": `"` + strings.Repeat("é", 300000) + `"`}), "terms")
	counter("terms shape", goodTerms(map[string]string{"Fee": `{"amount":"1.00","currency":"EUR"}`}), "unknown field: Fee")
	counter("terms shape", goodTerms(map[string]string{"fee\u0000": `{"amount":"1.00","currency":"EUR"}`}), "unknown field")
	counter("terms shape", goodTerms(map[string]string{strings.Repeat("f", 500): `1`}), "unknown field")

	open := func(group, schema, want string) {
		cs = append(cs, badCase{"", group, "negotiation_open", `{"subject_schema":` + schema + `}`, want})
	}
	field := func(name, def string) string { return fmt.Sprintf(`{%q:%s}`, name, def) }
	for _, c := range []struct{ schema, want string }{
		{field(strings.Repeat("a", 33), `{"type":"int","label":"A"}`), "field name"},
		{field("Fee", `{"type":"int","label":"A"}`), `field name "Fee"`}, {field("1fee", `{"type":"int","label":"A"}`), "field name"},
		{field("naïve", `{"type":"int","label":"A"}`), "field name"}, {field("fee-2", `{"type":"int","label":"A"}`), "field name"},
		{field("", `{"type":"int","label":"A"}`), "field name"}, {field("a;drop", `{"type":"int","label":"A"}`), "field name"},
		{field("fee", `{"type":"float","label":"A"}`), "fee"}, {field("fee", `{"label":"A"}`), "fee"},
		{field("fee", `{"type":"int"}`), "fee"}, {field("fee", `{"type":"int","label":""}`), "fee"},
		{field("fee", `{"type":"int","label":"`+strings.Repeat("L", 81)+`"}`), "fee"},
		{field("fee", `{"type":"int","label":"a\u0000b"}`), "fee"}, {field("fee", `{"type":"int","label":"Pay \u202eecivni"}`), "fee"},
		{field("fee", `{"type":"int","label":"A","currency":"EUR"}`), "fee"}, {field("fee", `{"type":"money","label":"A","currency":"EURO"}`), "fee"},
		{field("fee", `{"type":"int","label":"A","max_len":3}`), "fee"}, {field("note", `{"type":"string","label":"A","max_len":501}`), "note"},
		{field("note", `{"type":"string","label":"A","max_len":0}`), "note"}, {field("place", `{"type":"enum","label":"A","values":["one"]}`), "place"},
		{field("place", `{"type":"enum","label":"A","values":["a","a"]}`), "place"}, {field("place", `{"type":"enum","label":"A"}`), "place"},
		{field("place", `{"type":"enum","label":"A","values":["a","`+strings.Repeat("v", 41)+`"]}`), "place"},
		{field("fee", `{"type":"int","label":"A","secret":true}`), "fee"}, {field("fee", `{"type":"int","label":"A","optional":"yes"}`), "fee"},
		{field("fee", `"int"`), "fee"}, {`[]`, "subject_schema"}, {`{}`, "subject_schema"},
		{`{"a":{"type":"int","label":"A"},"a":{"type":"int","label":"B"}}`, "a"},
	} {
		open("schema edge", c.schema, c.want)
	}
	for _, c := range []struct{ schema, want string }{
		{field("fee", `{"type":"int","label":"Fее"}`), "fee: label mixes scripts in one word"},
		{field("pay", `{"type":"int","label":"Pаyment to IBAN"}`), "pay: label mixes scripts in one word"},
		{field("fee", `{"type":"int","label":"Fe\u200be"}`), "fee: label holds an invisible character"},
		{field("fee", `{"type":"int","label":"Fee\u2060"}`), "fee: label holds an invisible character"},
		{`{"a":{"type":"int","label":"Top"},"b":{"type":"int","label":"Тор"}}`, "looks like the label of"},
		{`{"a":{"type":"int","label":"Fee"},"b":{"type":"int","label":"fee"}}`, "looks like the label of"},
		{`{"a":{"type":"int","label":"Total"},"b":{"type":"int","label":"Ｔｏｔａｌ"}}`, "looks like the label of"},
		{field("ok", `{"type":"enum","label":"OK","values":["yes","уеs"]}`), "ok: value"},
		{field("ok", `{"type":"enum","label":"OK","values":["ye","уе"]}`), "look alike"},
		{field("ok", `{"type":"enum","label":"OK","values":["video","vid\u200beo"]}`), "invisible character"},
		{field("ok", `{"type":"enum","label":"OK","values":["paypal","pаypal"]}`), "ok: value"},
		// The same text in two Unicode forms: é as one character, and as e
		// with a combining accent; ﬁ as a ligature.
		{field("ok", `{"type":"enum","label":"OK","values":["caf\u00e9","cafe\u0301"]}`), `ok: values "caf\u00e9" and "cafe\u0301" are the same text written in two Unicode forms`},
		{`{"a":{"type":"int","label":"Caf\u00e9"},"b":{"type":"int","label":"Cafe\u0301"}}`, "b: its label and the label of a:"},
		{field("ok", `{"type":"enum","label":"OK","values":["\ufb01ne","fine"]}`), "two Unicode forms"},
	} {
		open("homoglyph", c.schema, c.want)
		cs = append(cs, badCase{"", "homoglyph", "negotiation_join", `{"invite_code":"$INV","subject_schema":` + c.schema + `}`, c.want})
	}
	for _, c := range []struct{ title, want string }{
		{`Pаyment due`, "title: mixes scripts in one word"}, {"a\u200bb", "title: holds an invisible character"},
		{`Kick\u000aoff`, "title: one line of readable text"}, {`Kick\u0009off`, "title: one line of readable text"},
	} {
		cs = append(cs, badCase{"", "homoglyph", "negotiation_open", `{"subject_schema":` + richSchema + `,"title":"` + c.title + `"}`, c.want})
	}
	var many strings.Builder
	many.WriteByte('{')
	for i := range 25 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `"f%d":{"type":"int","label":"F%d"}`, i, i)
	}
	many.WriteByte('}')
	open("schema edge", many.String(), "24")

	limits := func(lim, want string) {
		cs = append(cs, badCase{"", "limits edge", "negotiation_open", `{"subject_schema":` + richSchema + `,"limits":` + lim + `}`, want})
	}
	for _, c := range []struct{ lim, want string }{
		{`{"note":{"max":3}}`, "limits.note: string fields take no limits"}, {`{"nope":{"max":3}}`, "nope"},
		{`{"qty":{"min":5,"max":3}}`, "qty"}, {`{"qty":{"max":"3"}}`, "qty"}, {`{"qty":{"maximum":3}}`, "qty"},
		{`{"fee":{"max":{"amount":"5.00","currency":"USD"}}}`, "fee"}, {`{"fee":{"max":"5.00"}}`, "fee"},
		{`{"fee":{"max":{"amount":"5.001","currency":"EUR"}}}`, "fee"}, {`{"place":{"one_of":["boat"]}}`, "place"},
		{`{"place":{"one_of":[]}}`, "place"}, {`{"ok":{"equals":"true"}}`, "ok"}, {`{"day":{"min":"2027-02-30"}}`, "day"},
		{`{"when":{"min":"2027-03-01T10:00:00"}}`, "when"}, {`{"when":{"min":"2027-03-02T10:00:00Z","max":"2027-03-01T10:00:00Z"}}`, "when"},
		{`[1]`, "limits"},
	} {
		limits(c.lim, c.want)
	}

	injections := []string{`'; DROP TABLE rooms; --`, `" OR 1=1 --`, `{{.}}`, `{{template "x"}}`, `<script>alert(1)</script>`,
		`../../etc/passwd`, `%00`, `$(reboot)`, strings.Repeat("A", 10000), "rt_\u0000", `\u202e`}
	for _, inj := range injections {
		q, _ := json.Marshal(inj)
		cs = append(cs, badCase{"", "injection", "negotiation_read", `{"room_token":` + string(q) + `}`, "room_token"})
		cs = append(cs, badCase{"", "injection", "negotiation_join", `{"invite":` + string(q) + `,"subject_schema":` + richSchema + `}`, "invite: "})
	}
	for _, inj := range injections[:4] {
		q, _ := json.Marshal(inj)
		cs = append(cs, badCase{"", "injection", "negotiation_list", `{"cursor":` + string(q) + `}`, "cursor"})
		cs = append(cs, badCase{"", "injection", "negotiation_respond", `{"room_token":"$TB","verdict":"approve","subject_hash":` + string(q) + `}`, "subject_hash"})
	}

	cs = append(cs, []badCase{
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"approve","subject_hash":"$H"}`, "unknown argument: subject_hash"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"approve"}`, "verdict: approve goes through negotiation_respond"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"cancel"}`, "verdict: cancel goes through negotiation_cancel"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"preapprove"}`, "verdict"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"COUNTER","subject":` + goodTerms(nil) + `}`, "verdict"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"offer","subject":` + goodTerms(nil) + `}`, "terms are on the table already"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"counter"}`, "counter needs terms"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"need_more_detail","subject":` + goodTerms(nil) + `}`, "need_more_detail carries no terms"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"need_more_detail","fields":["nope"]}`, "fields: unknown field: nope"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"need_more_detail","fields":["fee","fee"]}`, "fields: fee is listed twice"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"counter","fields":["fee"],"subject":` + goodTerms(map[string]string{"qty": "9"}) + `}`, "fields go with need_more_detail only"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"counter","options":[` + goodTerms(nil) + `]}`, "options: 2 to 10 alternatives"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"counter","options":[` + goodTerms(nil) + `,` + goodTerms(nil) + `]}`, "options[1]: the same terms as options[0]"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"counter","subject":` + goodTerms(nil) + `,"options":[` + goodTerms(nil) + `,` + goodTerms(map[string]string{"qty": "9"}) + `]}`, "pass subject or options, not both"},
		{"a", "verdicts", "negotiation_propose", `{"room_token":"$TA","verdict":"counter","subject":` + goodTerms(map[string]string{"qty": "9"}) + `}`, "not your turn"},
		{"", "verdicts", "negotiation_respond", `{"room_token":"$TB","verdict":"approve","subject_hash":"sha256:` + strings.Repeat("0", 64) + `"}`, "subject_hash does not match the terms on the table"},
		{"", "verdicts", "negotiation_respond", `{"room_token":"$TB","verdict":"approve","subject_hash":"$H "}`, "subject_hash"},
		{"", "verdicts", "negotiation_respond", `{"room_token":"$TB","verdict":"approve","subject_hash":"SHA256:` + strings.Repeat("0", 64) + `"}`, "subject_hash"},
		{"", "verdicts", "negotiation_respond", `{"room_token":"$TB","verdict":"reject","subject_hash":"$H"}`, "subject_hash: goes with approve only"},
		{"", "verdicts", "negotiation_respond", `{"room_token":"$TB","verdict":"cancel"}`, "verdict: must be approve or reject"},
		{"a", "verdicts", "negotiation_respond", `{"room_token":"$TA","verdict":"reject"}`, "not your turn"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"title":"` + strings.Repeat("t", 121) + `"}`, "title: 1 to 120 characters"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"title":"   "}`, "title"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"title":"Fee\u0000"}`, "title"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"title":"Pay \u202eecivni"}`, "title"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"deadline":"2000-01-01T00:00:00Z"}`, "deadline must be in the future"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"deadline":"2999-01-01T00:00:00Z"}`, "deadline must be at most 90 days away"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"deadline":"2027-01-01"}`, "deadline"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"invite_email":"a@b@c"}`, "invite_email"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"invite_email":"Bob <bob@example.test>"}`, "invite_email"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"invite_email":"bob@example.test\r\nBcc: x@y.z"}`, "invite_email"},
		{"", "verdicts", "negotiation_open", `{"subject_schema":` + richSchema + `,"slots":[{"start":"2027-03-01T10:00:00Z","end":"2027-03-01T11:00:00Z"}]}`, "pass subject_schema or slots, not both"},
		{"", "verdicts", "negotiation_open", `{"slots":[{"start":"2027-03-01T11:00:00Z","end":"2027-03-01T10:00:00Z"}]}`, "slots[0]: end must be after start"},
		{"", "verdicts", "negotiation_open", `{"preapprove":true,"subject_schema":` + richSchema + `}`, "preapprove needs options or slots"},
		{"", "verdicts", "negotiation_open", `{}`, "subject_schema is required"},
		{"", "verdicts", "negotiation_join", `{"invite_code":"$INV"}`, "subject_schema is required"},
		{"", "verdicts", "negotiation_join", `{"invite_code":"$INV","invite_url":"$INV","subject_schema":` + richSchema + `}`, "invite: pass it once"},
		{"", "verdicts", "negotiation_join", `{"invite_code":"","subject_schema":` + richSchema + `}`, "invite: required"},
		{"", "verdicts", "negotiation_list", `{"room_tokens":["$TB"],"cursor":"5"}`, "cursor: pages the list of your rooms"},
		{"", "verdicts", "negotiation_list", `{"room_tokens":[]}`, "room_tokens: at least one token"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"need_more_detail","fields":[]}`, "fields: name at least one field"},
		{"", "verdicts", "negotiation_propose", `{"room_token":"$TB","verdict":"counter","options":[]}`, "options"},
		{"", "verdicts", "negotiation_open", `{"slots":[]}`, "slots"},
		{"", "verdicts", "negotiation_list", `{"room_tokens":[` + strings.TrimSuffix(strings.Repeat(`"$TB",`, 21), ",") + `]}`, "room_tokens: at most 20"},
		{"", "verdicts", "negotiation_list", `{"cursor":"-1"}`, "cursor: not one this list gave"},
		{"", "verdicts", "negotiation_read", `{}`, "room_token: required"},
		{"", "verdicts", "negotiation_cancel", `{}`, "room_token: required"},
	}...)
	return cs
}

// TestBadInputTools sends every malformed call of the table through the
// real HTTP endpoint: each must be answered (no 5xx) with one clear line
// naming the field or the rule, and none may change anything stored.
func TestBadInputTools(t *testing.T) {
	s := newStack(t, stackConfig{tenants: 2})
	a, b := s.tenants[0], s.tenants[1]
	var schema, offer map[string]any
	if err := json.Unmarshal([]byte(richSchema), &schema); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(goodTerms(nil)), &offer)
	// room is a room where b is to answer a's offer, and a live invitation.
	var vars *strings.Replacer
	var before string
	room := func() {
		ta, tb, _ := s.pair(a, b, schema, nil, nil, offer)
		inv := a.must("negotiation_open", map[string]any{"subject_schema": schema}).str("invite_code")
		hash := tableHash(b.must("negotiation_read", map[string]any{"room_token": tb}).out)
		vars = strings.NewReplacer("$TA", ta, "$TB", tb, "$INV", inv, "$H", hash)
		before = s.state()
	}
	room()

	cases := badCases()
	groups := map[string]int{}
	bad5xx, unclear, accepted := 0, 0, 0
	for i, c := range cases {
		args := vars.Replace(c.args)
		who := b
		if c.by == "a" {
			who = a
		}
		ans := s.rawPost("/mcp/"+who.slug, who.key, toolCall(c.tool, []byte(args)), nil)
		groups[c.group]++
		switch {
		case ans.status >= 500:
			bad5xx++
			t.Errorf("case %d (%s, %s %s): HTTP %d %s", i, c.group, c.tool, clipArgs(args), ans.status, ans.body)
		case ans.ok:
			accepted++
			t.Errorf("case %d (%s, %s %s): accepted", i, c.group, c.tool, args)
		default:
			if msg := unclearLine(ans.msg, c.want); msg != "" {
				unclear++
				t.Errorf("case %d (%s, %s %s): %s", i, c.group, c.tool, clipArgs(args), msg)
			}
		}
		if after := s.state(); after != before {
			t.Errorf("case %d (%s, %s %s) changed what is stored", i, c.group, c.tool, clipArgs(args))
			room() // start again from a clean room, so one defect does not hide the others
		}
	}
	t.Logf("bad input through MCP: %d malformed calls (%s); 5xx: %d; accepted: %d; unclear or wrong message: %d",
		len(cases), groupCounts(groups), bad5xx, accepted, unclear)
}

// unclearLine says what is wrong with the line a caller was told: it must
// be one line, name the field or rule (want), and carry no internals.
func unclearLine(msg, want string) string {
	switch {
	case msg == "":
		return "no message"
	case strings.ContainsAny(msg, "\n\r"):
		return fmt.Sprintf("more than one line: %q", msg)
	case utf8.RuneCountInString(msg) > 300:
		return fmt.Sprintf("a message of %d characters", utf8.RuneCountInString(msg))
	case !utf8.ValidString(msg):
		return fmt.Sprintf("invalid UTF-8: %q", msg)
	}
	for _, internal := range []string{"internal error", "json: ", "invalid character", "<nil>", "%!", "pgx", "SQLSTATE", "goroutine", "unmarshal"} {
		if strings.Contains(msg, internal) {
			return fmt.Sprintf("internals in the message: %q", msg)
		}
	}
	if !strings.Contains(msg, want) {
		return fmt.Sprintf("got %q, want it to say %q", msg, want)
	}
	return ""
}

func clipArgs(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

func groupCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
