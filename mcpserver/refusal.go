package mcpserver

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// hints finish the protocol's shortest refusals with what an agent is to
// do (the protocol's texts stay as the vectors hold them).
var hints = map[string]string{
	"not your turn": "not your turn: it is the other side's turn. Wait for their move: negotiation_read with wait_seconds answers when it comes.",
}

// refusal is a refused call as a tool error: one text line that says every
// fault (an unknown field with the fields there are), then, when there are
// several, the faults as JSON
// ({"faults": [{field, rule, message}]}) in a second text block. There is
// no structured content: a client validates that against the output schema.
// The advice to retry while the database is away carries when in _meta,
// {"retry_after": 5}, as the calls refused before a tool do (notNow).
func refusal(err error) *mcp.CallToolResult {
	msg := answerOf(err) // "internal error", or the retry advice while the database is away
	if msg == app.RetryMessage {
		return retryLater(msg, unavailableRetry)
	}
	if h, ok := hints[msg]; ok {
		msg = h
	}
	var faults []negotiation.Fault
	if e, ok := errors.AsType[*app.Error](err); ok && len(e.Faults) > 0 {
		faults = e.Faults
		lines := make([]string, len(faults))
		for i, f := range faults {
			lines[i] = f.Message
		}
		msg = strings.Join(lines, "; ")
	}
	res := errorResult(msg)
	if len(faults) > 1 {
		b, _ := json.Marshal(struct {
			Faults []negotiation.Fault `json:"faults"`
		}{faults})
		res.Content = append(res.Content, &mcp.TextContent{Text: string(b)})
	}
	return res
}
