package mcpserver

import "encoding/json"

// The tools' input and output schemas (JSON Schema 2020-12), written by
// hand: they are the public contract and each word is for a model to read.

const termsSchema = `{"type": "object", "description": "Terms: one value per field of YOUR subject_schema, e.g. {\"meeting_time\": {\"start\": \"2026-12-03T10:00:00+02:00\", \"end\": \"2026-12-03T10:30:00+02:00\"}, \"fee\": {\"amount\": \"150.00\", \"currency\": \"EUR\"}}. Money amounts are decimal strings. Unknown fields reject the move."}`

const schemaSchema = `{"type": "object", "description": "The shape of the terms you can agree: {field_name: {\"type\": string|int|bool|enum|timerange|date|money, \"label\": text for your human, optional: true, repeated: true, values: [...] (enum), currency: \"EUR\" (money), max_len: n (string)}}. Lowercase names, at most 24 fields. Keep it small: a meeting is one timerange, no separate duration."}`

const limitsSchema = `{"type": "object", "description": "Your human's private bounds on fields of your own schema, never shown to the other side: int, date, money: {\"min\": v, \"max\": v}; timerange: {\"min\": moment, \"max\": moment} (the window your human is free); enum: {\"one_of\": [...]}; bool: {\"equals\": true}. Fixed once declared."}`

const roomTokenSchema = `{"type": "string", "description": "Your room_token for the room, from negotiation_open or negotiation_join."}`

var inputSchemas = map[string]string{
	"negotiation_open": `{"type": "object", "additionalProperties": false, "properties": {
		"subject_schema": ` + schemaSchema + `,
		"limits": ` + limitsSchema + `,
		"subject": ` + termsSchema + `,
		"options": {"type": "array", "minItems": 2, "maxItems": 10, "items": ` + termsSchema + `, "description": "2 to 10 alternative terms instead of subject; the other side picks one."},
		"slots": {"type": "array", "minItems": 1, "maxItems": 10, "items": {"type": "object", "properties": {"start": {"type": "string"}, "end": {"type": "string"}}, "required": ["start", "end"]}, "description": "Meeting times to choose from, instead of subject_schema: each {start, end} in RFC 3339 with your human's UTC offset."},
		"preapprove": {"type": "boolean", "description": "With options or slots: your human confirms once that any of them is fine, so the other side's pick agrees the room at once."},
		"title": {"type": "string", "minLength": 1, "maxLength": 120, "description": "What this is about, in your human's words; both sides see it."},
		"deadline": {"type": "string", "format": "date-time", "description": "When the negotiation lapses if not agreed (RFC 3339). Default 14 days, at most 90."},
		"invite_email": {"type": "string", "format": "email", "description": "Email the invitation to this person. An account may have only so many invitations emailed a day: past that the open is refused and nothing is opened; open without invite_email and send invite_url yourself."}
	}}`,
	"negotiation_join": `{"type": "object", "additionalProperties": false, "properties": {
		"invite_code": {"type": "string", "description": "The invitation's code, or the whole invite URL."},
		"invite_url": {"type": "string", "description": "The invite URL (instead of invite_code)."},
		"subject_schema": ` + schemaSchema + `,
		"limits": ` + limitsSchema + `
	}}`,
	"negotiation_list": `{"type": "object", "additionalProperties": false, "properties": {
		"room_tokens": {"type": "array", "maxItems": 20, "items": {"type": "string"}, "description": "Up to 20 room tokens. Leave out to list your rooms, newest first."},
		"cursor": {"type": "string", "description": "next_cursor from the previous page."}
	}}`,
	"negotiation_read": `{"type": "object", "additionalProperties": false, "required": ["room_token"], "properties": {
		"room_token": ` + roomTokenSchema + `
	}}`,
	"negotiation_propose": `{"type": "object", "additionalProperties": false, "required": ["room_token", "verdict"], "properties": {
		"room_token": ` + roomTokenSchema + `,
		"verdict": {"type": "string", "enum": ["offer", "counter", "need_more_detail"]},
		"subject": ` + termsSchema + `,
		"options": {"type": "array", "minItems": 2, "maxItems": 10, "items": ` + termsSchema + `},
		"fields": {"type": "array", "items": {"type": "string"}, "description": "need_more_detail: the fields you need detail on."}
	}}`,
	"negotiation_respond": `{"type": "object", "additionalProperties": false, "required": ["room_token", "verdict"], "properties": {
		"room_token": ` + roomTokenSchema + `,
		"verdict": {"type": "string", "enum": ["approve", "reject"]},
		"subject_hash": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$", "description": "approve: the subject_hash of the terms (or the option) you accept, from negotiation_read."}
	}}`,
	"negotiation_cancel": `{"type": "object", "additionalProperties": false, "required": ["room_token"], "properties": {
		"room_token": ` + roomTokenSchema + `
	}}`,
}

const viewSchema = `{"type": "object", "properties": {
	"state": {"type": "string", "enum": ["draft", "awaiting", "agreed", "closed"]},
	"closed_reason": {"type": "string"},
	"round": {"type": "integer"},
	"turn": {"type": ["string", "null"], "description": "you, them, or null when nobody may move"},
	"deadline": {"type": "string"},
	"title": {"type": "string"},
	"rounds": {"type": "array"},
	"terms_on_table": {"type": "object"},
	"approvals": {"type": "object"},
	"no_deal_possible": {"type": "array", "items": {"type": "string"}},
	"pending_confirmation": {"type": "object"},
	"next": {"type": "object", "properties": {"verdicts": {"type": "array", "items": {"type": "string"}}, "say": {"type": "string"}}},
	"next_counter_at": {"type": "string", "description": "While the cool-down between your counters runs: the moment (RFC 3339) from which you may counter again."},
	"for_your_human": {"type": "string"}
}, "required": ["state", "round", "turn", "deadline", "next", "for_your_human"]}`

const confirmationOutput = `{"type": "object", "required": ["status", "confirmation", "room"], "properties": {
	"status": {"type": "string", "enum": ["waiting_for_your_human"]},
	"confirmation": {"type": "object"},
	"room": ` + viewSchema + `
}}`

var outputSchemas = map[string]string{
	"negotiation_open": `{"type": "object", "required": ["room_token", "invite_url", "invite_code", "room"], "properties": {
		"room_token": {"type": "string"}, "invite_url": {"type": "string"}, "invite_code": {"type": "string"},
		"warnings": {"type": "array", "items": {"type": "string"}}, "room": ` + viewSchema + `}}`,
	"negotiation_join": `{"type": "object", "required": ["room_token", "room"], "properties": {
		"room_token": {"type": "string"}, "room": ` + viewSchema + `}}`,
	"negotiation_list": `{"type": "object", "required": ["rooms"], "properties": {
		"rooms": {"type": "array", "items": {"type": "object"}}, "next_cursor": {"type": "string"}}}`,
	"negotiation_read":    viewSchema,
	"negotiation_propose": viewSchema,
	"negotiation_respond": confirmationOutput,
	"negotiation_cancel":  confirmationOutput,
}

func rawSchema(s string) json.RawMessage {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic("mcpserver: a tool schema is not JSON: " + err.Error())
	}
	b, _ := json.Marshal(v)
	return b
}
