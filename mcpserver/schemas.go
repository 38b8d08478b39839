package mcpserver

import (
	"encoding/json"
	"strings"
)

// The tools' input and output schemas (JSON Schema 2020-12, in the subset
// every common client reads: no type lists, no untyped node, references
// only into the tool's own $defs), written by hand: they are the public
// contract, checked by a validating client before it calls. The tool list
// is read by a model at every session, so each byte counts: names of
// $defs are one or two letters, and a rule is written once per tool.

// defs is a $defs object of the given members.
func defs(members ...string) string { return `"$defs":{` + strings.Join(members, ",") + `}` }

// obj is an object schema closed to other members.
func obj(required, props string) string {
	return `{"type":"object",` + required + `"additionalProperties":false,"properties":{` + props + `}}`
}

// Input $defs members (each tool carries the ones it uses).
const (
	fieldName = `{"pattern":"^[a-z][a-z0-9_]{0,31}$"}`
	currency  = `{"type":"string","pattern":"^[A-Z]{3}$"}`
	dTime     = `"t":{"type":"string","format":"date-time"}`
)

var (
	// a money value, and a timerange value
	dMoney = `"m":{"type":"object","required":["amount","currency"],"properties":{"amount":{"type":"string","pattern":"^(0|[1-9][0-9]*)(\\.[0-9]+)?$"},"currency":` + currency + `}}`
	dRange = `"r":{"type":"object","required":["start","end"],"properties":{"start":{"$ref":"#/$defs/t"},"end":{"$ref":"#/$defs/t"}}}`
	// terms: a value of its field's type (a list, for a repeated field) per field
	dTerms = `"T":{"type":"object","maxProperties":24,"propertyNames":` + fieldName + `,"additionalProperties":{"anyOf":[{"$ref":"#/$defs/v"},{"type":"array","items":{"$ref":"#/$defs/v"}}]}},` +
		`"v":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"boolean"},{"$ref":"#/$defs/r"},{"$ref":"#/$defs/m"}]}`
	// subject_schema: the fields terms are made of
	dSchema = `"S":{"type":"object","maxProperties":24,"propertyNames":` + fieldName + `,"additionalProperties":` +
		obj(`"required":["type","label"],`, `"type":{"enum":["string","int","bool","enum","timerange","date","money"]},"label":`+str+`,`+
			`"optional":{"type":"boolean"},"repeated":{"type":"boolean"},"values":`+strs+`,`+
			`"currency":`+currency+`,"max_len":`+integer) + `}`
	// limits: bounds per field of one's own schema
	dLimits = `"L":{"type":"object","maxProperties":24,"propertyNames":` + fieldName + `,"additionalProperties":{"type":"object","properties":{` +
		`"min":{"$ref":"#/$defs/b"},"max":{"$ref":"#/$defs/b"},"one_of":` + strs + `,"equals":{"type":"boolean"}}}},` +
		`"b":{"anyOf":[{"type":"integer"},{"type":"string"},{"$ref":"#/$defs/m"}]}`
)

const tok = `"room_token":{"type":"string"}`

var inputSchemas = map[string]string{
	// Two modes: a subject_schema (with subject, options or neither), or
	// slots (no schema, no subject, no options).
	"negotiation_open": `{"type":"object","properties":{` +
		`"subject_schema":{"$ref":"#/$defs/S"},"limits":{"$ref":"#/$defs/L"},"subject":{"$ref":"#/$defs/T"},` +
		`"options":{"type":"array","minItems":2,"maxItems":10,"items":{"$ref":"#/$defs/T"}},"slots":{"type":"array","minItems":1,"maxItems":10,"items":{"$ref":"#/$defs/r"}},` +
		`"preapprove":{"type":"boolean"},"title":{"type":"string","minLength":1,"maxLength":120},"deadline":{"$ref":"#/$defs/t"},"invite_email":{"type":"string","format":"email"}},` +
		`"oneOf":[{"required":["subject_schema"]},{"required":["slots"]}],"not":{"anyOf":[{"required":["subject","options"]},{"required":["slots","subject"]},{"required":["slots","options"]}]},` +
		defs(dTime, dMoney, dRange, dTerms, dSchema, dLimits) + `}`,
	// invite: the code or the whole URL (the old names invite_code and
	// invite_url are still read, and no longer shown).
	"negotiation_join": `{"type":"object","required":["invite"],"properties":{"invite":{"type":"string"},` +
		`"subject_schema":{"$ref":"#/$defs/S"},"limits":{"$ref":"#/$defs/L"}},` + defs(dMoney, dSchema, dLimits) + `}`,
	"negotiation_list": `{"type":"object","properties":{` +
		`"room_tokens":{"type":"array","minItems":1,"maxItems":20,"items":{"type":"string"}},"cursor":{"type":"string"}},` +
		`"not":{"required":["room_tokens","cursor"]}}`,
	"negotiation_read": `{"type":"object","required":["room_token"],"properties":{` + tok + `,` +
		`"history":{"type":"boolean"},"wait_seconds":{"type":"integer","minimum":0,"maximum":25},"receipt":{"type":"boolean"}}}`,
	// subject or options for offer and counter; need_more_detail carries no
	// terms and may name fields (DESIGN §2; the vectors ask without any).
	"negotiation_propose": `{"type":"object","required":["room_token","verdict"],"properties":{` + tok + `,` +
		`"verdict":{"enum":["offer","counter","need_more_detail"]},"subject":{"$ref":"#/$defs/T"},` +
		`"options":{"type":"array","minItems":2,"maxItems":10,"items":{"$ref":"#/$defs/T"}},"fields":{"type":"array","minItems":1,"items":{"type":"string"}}},` +
		`"oneOf":[{"properties":{"verdict":{"enum":["offer","counter"]},"fields":{"not":{}}},"oneOf":[{"required":["subject"]},{"required":["options"]}]},` +
		`{"properties":{"verdict":{"const":"need_more_detail"},"subject":{"not":{}},"options":{"not":{}}}}],` +
		defs(dTime, dMoney, dRange, dTerms) + `}`,
	// subject_hash with approve, never with reject.
	"negotiation_respond": `{"type":"object","required":["room_token","verdict"],"properties":{` + tok + `,` +
		`"verdict":{"enum":["approve","reject"]},"subject_hash":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}},` +
		`"oneOf":[{"properties":{"verdict":{"const":"approve"}},"required":["subject_hash"]},{"properties":{"verdict":{"const":"reject"}},"not":{"required":["subject_hash"]}}]}`,
	"negotiation_cancel": `{"type":"object","required":["room_token"],"properties":{` + tok + `}}`,
}

// Output schemas. The room view (every tool but the list answers with it,
// under "room") is described once, in negotiation_read's: every member by
// its type, the enums (state, close reason, turn, verdicts), and next in
// full. The other tools give it as an object and their own members
// precisely. A copy in each tool took the list past 26 KB, and every
// level in negotiation_read's alone would overrun the 10 KB budget
// (docs/agents.md); a $defs shared across tools would be a remote
// reference, which clients do not follow.
const (
	enumState  = `{"enum":["draft","awaiting","agreed","closed"]}`
	enumReason = `{"enum":["rejected","cancelled","withdrawn","expired","lapsed","account_deleted"]}`
	enumWho    = `{"enum":["you","them"]}`
	str        = `{"type":"string"}`
	strs       = `{"type":"array","items":{"type":"string"}}`
	integer    = `{"type":"integer"}`
)

// roomRead is the room (R; t is a moment).
const roomRead = `"R":{"type":"object","required":["state","round","deadline","rounds","next","for_your_human"],"properties":{` +
	`"state":` + enumState + `,"closed_reason":` + enumReason + `,"round":` + integer + `,"turn":` + enumWho + `,"deadline":{"$ref":"#/$defs/t"},"invitation_expires":{"$ref":"#/$defs/t"},"title":` + str + `,` +
	`"rounds":{"type":"array"},"earlier_rounds":` + integer + `,"terms_on_table":{"type":"object"},"approvals":{"type":"object"},"no_deal_possible":` + strs + `,"pending_confirmation":{"type":"object"},"undelivered":{"type":"array"},` +
	`"next":{"type":"object","required":["verdicts","say"],"properties":{"verdicts":{"type":"array","items":{"enum":["offer","counter","need_more_detail","approve","reject","cancel"]}},"say":` + str + `,"check_after":{"$ref":"#/$defs/t"}}},` +
	`"next_counter_at":{"$ref":"#/$defs/t"},"for_your_human":` + str + `}}`

// roomOutput is an output schema: the room, and the tool's own members.
func roomOutput(full bool, required string, props string) string {
	room, d := `{"type":"object"}`, ""
	if full {
		room, d = `{"$ref":"#/$defs/R"}`, `,`+defs(dTime, roomRead)
	}
	return `{"type":"object","required":["room"` + required + `],"properties":{"room":` + room + props + `}` + d + `}`
}

// confirmation: the request the call made or met (see waiting).
const waitingProps = `,"status":{"const":"waiting_for_your_human"},"confirmation":{"type":"object"}`

var outputSchemas = map[string]string{
	"negotiation_open": roomOutput(false, `,"room_token","invite_url","invite_code"`,
		`,"room_token":{"type":"string"},"invite_url":{"type":"string"},"invite_code":{"type":"string"},"warnings":`+strs),
	"negotiation_join": roomOutput(false, `,"room_token"`, `,"room_token":{"type":"string"}`),
	"negotiation_list": `{"type":"object","required":["rooms"],"properties":{"rooms":{"type":"array","items":{"type":"object",` +
		`"properties":{"room_token":{"type":"string"},` +
		`"state":` + enumState + `,"closed_reason":` + enumReason + `,"round":{"type":"integer"},"turn":` + enumWho + `,"deadline":{"type":"string","format":"date-time"},"invitation_expires":{"type":"string","format":"date-time"},"title":{"type":"string"},` +
		`"pending_confirmation":{"type":"boolean"}}}},"next_cursor":{"type":"string"}}}`,
	"negotiation_read":    roomOutput(true, "", `,"receipt":{"type":"string"}`),
	"negotiation_propose": roomOutput(false, "", ""),
	"negotiation_respond": roomOutput(false, `,"status"`, waitingProps),
	"negotiation_cancel":  roomOutput(false, `,"status"`, waitingProps),
}

func rawSchema(s string) json.RawMessage {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic("mcpserver: a tool schema is not JSON: " + err.Error() + ": " + s)
	}
	b, _ := json.Marshal(v)
	return b
}
