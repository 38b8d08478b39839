package mcpserver

import (
	"encoding/json"
	"strings"
)

// The tools' input and output schemas (JSON Schema 2020-12, in the subset
// every common client reads: no type lists, no untyped node, references
// only into the tool's own $defs), written by hand: they are the public
// contract, checked by a validating client before it calls. Every name
// here is short on purpose: the tool list is read by a model at each
// session and each byte counts.

// defs joins $defs members into one $defs object.
func defs(members ...string) string { return `"$defs":{` + strings.Join(members, ",") + `}` }

// Shared $defs members (each tool carries the ones it uses).
const (
	dName = `"n":{"type":"string","pattern":"^[a-z][a-z0-9_]{0,31}$"}`
	dTime = `"t":{"type":"string","format":"date-time"}`
	dHash = `"h":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}`
	// a money value and a timerange value, as terms and limits write them
	dMoney = `"m":{"type":"object","required":["amount","currency"],"additionalProperties":false,"properties":{"amount":{"type":"string","pattern":"^(0|[1-9][0-9]*)(\\.[0-9]+)?$"},"currency":{"type":"string","pattern":"^[A-Z]{3}$"}}}`
	dRange = `"r":{"type":"object","required":["start","end"],"additionalProperties":false,"properties":{"start":{"$ref":"#/$defs/t"},"end":{"$ref":"#/$defs/t"}}}`
	// one value of a field: string, enum, int, bool, date, timerange, money
	dValue = `"v":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"boolean"},{"$ref":"#/$defs/r"},{"$ref":"#/$defs/m"}]}`
	// terms: a value (or, for a repeated field, a list) per field
	dTerms = `"terms":{"type":"object","maxProperties":24,"propertyNames":{"$ref":"#/$defs/n"},"additionalProperties":{"anyOf":[{"$ref":"#/$defs/v"},{"type":"array","minItems":1,"maxItems":50,"items":{"$ref":"#/$defs/v"}}]}}`
	// subject_schema: the fields terms are made of
	dSchema = `"schema":{"type":"object","minProperties":1,"maxProperties":24,"propertyNames":{"$ref":"#/$defs/n"},"additionalProperties":{"type":"object","required":["type","label"],"additionalProperties":false,"properties":{"type":{"enum":["string","int","bool","enum","timerange","date","money"]},"label":{"type":"string","minLength":1},"optional":{"type":"boolean"},"repeated":{"type":"boolean"},"values":{"type":"array","minItems":1,"maxItems":32,"items":{"type":"string","minLength":1,"maxLength":40}},"currency":{"type":"string","pattern":"^[A-Z]{3}$"},"max_len":{"type":"integer","minimum":1}}}}`
	// limits: bounds per field of one's own schema
	dLimits = `"limits":{"type":"object","maxProperties":24,"propertyNames":{"$ref":"#/$defs/n"},"additionalProperties":{"type":"object","minProperties":1,"additionalProperties":false,"properties":{"min":{"$ref":"#/$defs/b"},"max":{"$ref":"#/$defs/b"},"one_of":{"type":"array","minItems":1,"items":{"type":"string"}},"equals":{"type":"boolean"}}}}`
	dBound  = `"b":{"anyOf":[{"type":"integer"},{"type":"string"},{"$ref":"#/$defs/m"}]}`
	tok     = `"room_token":{"type":"string","minLength":1}`
)

// The room view every tool but the list answers with, under "room".
var roomDefs = []string{dTime, dHash,
	`"room":{"type":"object","required":["state","round","turn","deadline","rounds","approvals","no_deal_possible","next","for_your_human"],"properties":{` +
		`"state":{"enum":["draft","awaiting","agreed","closed"]},` +
		`"closed_reason":{"enum":["rejected","cancelled","withdrawn","expired","lapsed","account_deleted"]},` +
		`"round":{"type":"integer"},"turn":{"enum":["you","them",null]},"deadline":{"$ref":"#/$defs/t"},"title":{"type":"string"},` +
		`"rounds":{"type":"array","items":{"$ref":"#/$defs/mv"}},"earlier_rounds":{"type":"integer"},` +
		`"terms_on_table":{"type":"object","required":["by","as_options","options"],"properties":{"by":{"$ref":"#/$defs/by"},"as_options":{"type":"boolean"},"options":{"type":"array","items":{"$ref":"#/$defs/o"}},"you_lack":{"$ref":"#/$defs/ss"},"they_lack":{"$ref":"#/$defs/ss"}}},` +
		`"approvals":{"type":"object","properties":{"you":{"$ref":"#/$defs/hn"},"them":{"$ref":"#/$defs/hn"}}},` +
		`"no_deal_possible":{"$ref":"#/$defs/ss"},"pending_confirmation":{"$ref":"#/$defs/c"},` +
		`"next":{"type":"object","required":["verdicts","say"],"properties":{"verdicts":{"type":"array","items":{"$ref":"#/$defs/vd"}},"say":{"type":"string"},"check_after":{"$ref":"#/$defs/t"}}},` +
		`"next_counter_at":{"$ref":"#/$defs/t"},"for_your_human":{"type":"string"}}}`,
	`"by":{"enum":["you","them"]}`,
	`"ss":{"type":"array","items":{"type":"string"}}`,
	`"hn":{"anyOf":[{"$ref":"#/$defs/h"},{"type":"null"}]}`,
	`"vd":{"enum":["offer","counter","need_more_detail","approve","reject","cancel","preapprove"]}`,
	`"o":{"type":"object","required":["subject_hash","terms"],"properties":{"subject_hash":{"$ref":"#/$defs/h"},"terms":{"type":"object"},"outside_your_limits":{"type":"array","items":{"type":"object","properties":{"field":{"type":"string"},"bound":{"enum":["min","max","one_of","equals"]}}}}}}`,
	`"mv":{"type":"object","required":["round","by","verdict","at"],"properties":{"round":{"type":"integer"},"by":{"$ref":"#/$defs/by"},"verdict":{"$ref":"#/$defs/vd"},"terms":{"type":"array","items":{"$ref":"#/$defs/o"}},"fields":{"$ref":"#/$defs/ss"},"subject_hash":{"$ref":"#/$defs/h"},"at":{"$ref":"#/$defs/t"}}}`,
	`"c":{"type":"object","required":["id","verdict","requested_at"],"properties":{"id":{"type":"string"},"verdict":{"$ref":"#/$defs/vd"},"subject_hash":{"$ref":"#/$defs/h"},"requested_at":{"$ref":"#/$defs/t"}}}`,
}

// briefDefs is the room view as the tools that change a room describe it:
// the members an agent acts on after a move, precisely (state, turn, next);
// the others by their kind. It is the same view as negotiation_read's,
// whose output schema describes every level: one full copy per tool would
// triple the tool list a model reads.
var briefDefs = []string{dTime,
	`"room":{"type":"object","required":["state","round","turn","deadline","rounds","approvals","no_deal_possible","next","for_your_human"],"properties":{` +
		`"state":{"enum":["draft","awaiting","agreed","closed"]},"round":{"type":"integer"},"turn":{"enum":["you","them",null]},"deadline":{"$ref":"#/$defs/t"},` +
		`"rounds":{"type":"array"},"terms_on_table":{"type":"object"},"approvals":{"type":"object"},"no_deal_possible":{"type":"array"},` +
		`"next":{"type":"object","required":["verdicts","say"],"properties":{"verdicts":{"type":"array","items":{"type":"string"}},"say":{"type":"string"},"check_after":{"$ref":"#/$defs/t"}}},` +
		`"for_your_human":{"type":"string"}}}`,
}

// roomOutput is an output schema: the room (briefly, or full), and the
// tool's own members.
func roomOutput(full bool, required []string, props ...string) string {
	req := `"room"`
	for _, r := range required {
		req += `,"` + r + `"`
	}
	p := `"room":{"$ref":"#/$defs/room"}`
	for _, x := range props {
		p += "," + x
	}
	d := briefDefs
	if full {
		d = roomDefs
	}
	return `{"type":"object","required":[` + req + `],"properties":{` + p + `},` + defs(d...) + `}`
}

var inputSchemas = map[string]string{
	// Two modes: a subject_schema (with subject, options or neither), or
	// slots (no schema, no subject, no options).
	"negotiation_open": `{"type":"object","additionalProperties":false,"properties":{` +
		`"subject_schema":{"$ref":"#/$defs/schema"},"limits":{"$ref":"#/$defs/limits"},` +
		`"subject":{"$ref":"#/$defs/terms"},"options":{"type":"array","minItems":2,"maxItems":10,"items":{"$ref":"#/$defs/terms"}},` +
		`"slots":{"type":"array","minItems":1,"maxItems":10,"items":{"$ref":"#/$defs/r"}},"preapprove":{"type":"boolean"},` +
		`"title":{"type":"string","minLength":1,"maxLength":120},"deadline":{"$ref":"#/$defs/t"},"invite_email":{"type":"string","format":"email"}},` +
		`"oneOf":[{"required":["subject_schema"],"not":{"required":["slots"]}},{"required":["slots"],"not":{"anyOf":[{"required":["subject_schema"]},{"required":["subject"]},{"required":["options"]}]}}],` +
		`"not":{"required":["subject","options"]},` +
		defs(dName, dTime, dMoney, dRange, dValue, dTerms, dSchema, dLimits, dBound) + `}`,
	// invite (or its old names invite_code, invite_url): exactly one.
	"negotiation_join": `{"type":"object","additionalProperties":false,"properties":{` +
		`"invite":{"type":"string","minLength":1},"invite_code":{"type":"string","minLength":1},"invite_url":{"type":"string","minLength":1},` +
		`"subject_schema":{"$ref":"#/$defs/schema"},"limits":{"$ref":"#/$defs/limits"}},` +
		`"oneOf":[{"required":["invite"]},{"required":["invite_code"]},{"required":["invite_url"]}],` +
		defs(dName, dMoney, dSchema, dLimits, dBound) + `}`,
	"negotiation_list": `{"type":"object","additionalProperties":false,"properties":{` +
		`"room_tokens":{"type":"array","minItems":1,"maxItems":20,"items":{"type":"string","minLength":1}},"cursor":{"type":"string","minLength":1}},` +
		`"not":{"required":["room_tokens","cursor"]}}`,
	"negotiation_read": `{"type":"object","additionalProperties":false,"required":["room_token"],"properties":{` + tok + `,` +
		`"history":{"type":"boolean"},"wait_seconds":{"type":"integer","minimum":0,"maximum":25}}}`,
	// subject or options for offer and counter; fields, and nothing else,
	// for need_more_detail.
	"negotiation_propose": `{"type":"object","additionalProperties":false,"required":["room_token","verdict"],"properties":{` + tok + `,` +
		`"verdict":{"enum":["offer","counter","need_more_detail"]},"subject":{"$ref":"#/$defs/terms"},` +
		`"options":{"type":"array","minItems":2,"maxItems":10,"items":{"$ref":"#/$defs/terms"}},"fields":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/n"}}},` +
		`"oneOf":[{"properties":{"verdict":{"enum":["offer","counter"]}},"oneOf":[{"required":["subject"]},{"required":["options"]}],"not":{"required":["fields"]}},` +
		`{"properties":{"verdict":{"const":"need_more_detail"}},"required":["fields"],"not":{"anyOf":[{"required":["subject"]},{"required":["options"]}]}}],` +
		defs(dName, dTime, dMoney, dRange, dValue, dTerms) + `}`,
	// subject_hash with approve, never with reject.
	"negotiation_respond": `{"type":"object","additionalProperties":false,"required":["room_token","verdict"],"properties":{` + tok + `,` +
		`"verdict":{"enum":["approve","reject"]},"subject_hash":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}},` +
		`"oneOf":[{"properties":{"verdict":{"const":"approve"}},"required":["subject_hash"]},{"properties":{"verdict":{"const":"reject"}},"not":{"required":["subject_hash"]}}]}`,
	"negotiation_cancel": `{"type":"object","additionalProperties":false,"required":["room_token"],"properties":{` + tok + `}}`,
}

const waitingProps = `"status":{"const":"waiting_for_your_human"},"confirmation":{"type":"object","required":["id","verdict","requested_at"],"properties":{"id":{"type":"string"},"verdict":{"enum":["approve","reject","cancel"]},"subject_hash":{"type":"string"},"requested_at":{"$ref":"#/$defs/t"}}}`

var outputSchemas = map[string]string{
	"negotiation_open": roomOutput(false, []string{"room_token", "invite_url", "invite_code"},
		`"room_token":{"type":"string"},"invite_url":{"type":"string","format":"uri"},"invite_code":{"type":"string"},"warnings":{"type":"array","items":{"type":"string"}}`),
	"negotiation_join": roomOutput(false, []string{"room_token"}, `"room_token":{"type":"string"}`, `"meeting_field":{"type":"string"}`),
	"negotiation_list": `{"type":"object","required":["rooms"],"properties":{"rooms":{"type":"array","items":{"type":"object",` +
		`"required":["room_token","state","round","turn","deadline","pending_confirmation"],"properties":{"room_token":{"type":"string"},` +
		`"state":{"enum":["draft","awaiting","agreed","closed"]},"closed_reason":{"enum":["rejected","cancelled","withdrawn","expired","lapsed","account_deleted"]},` +
		`"round":{"type":"integer"},"turn":{"enum":["you","them",null]},"deadline":{"type":"string","format":"date-time"},"title":{"type":"string"},` +
		`"pending_confirmation":{"type":"boolean"}}}},"next_cursor":{"type":"string"}}}`,
	"negotiation_read":    roomOutput(true, nil, `"receipt":{"type":"string"}`),
	"negotiation_propose": roomOutput(false, nil),
	"negotiation_respond": roomOutput(false, []string{"status", "confirmation"}, waitingProps),
	"negotiation_cancel":  roomOutput(false, []string{"status", "confirmation"}, waitingProps),
}

func rawSchema(s string) json.RawMessage {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic("mcpserver: a tool schema is not JSON: " + err.Error() + ": " + s)
	}
	b, _ := json.Marshal(v)
	return b
}
