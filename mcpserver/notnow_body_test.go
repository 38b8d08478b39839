package mcpserver

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
)

// TestNotNowAnswersOnlyARequest: a call refused for now is answered as a
// JSON-RPC response (a tool error, HTTP 200) only when its body is a
// tools/call request that go-sdk would answer: JSON-RPC 2.0, with an id
// that is a number or a valid string. A body with "jsonrpc" missing or
// "1.0" (go-sdk: "invalid message version tag") or a string id holding
// invalid UTF-8 keeps the 429 and {"error": …}: before, the first got a
// 2.0 answer to a message no server takes, and the second a 200 whose
// body echoed the bytes raw, not JSON (RFC 8259 8.1: UTF-8).
func TestNotNowAnswersOnlyARequest(t *testing.T) {
	t.Parallel()
	a := fiber.New()
	a.Post("/", func(c *fiber.Ctx) error {
		return notNow(c, fiber.StatusTooManyRequests, 3, "the rule", "the rule, for the model")
	})
	for _, c := range []struct {
		body   string
		status int
		id     string // the id echoed, as JSON (status 200)
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"negotiation_list"}}`, 200, `7`},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"name":"negotiation_list","arguments":{}}}`, 200, `"a\"b"`},
		{"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"tools/call\",\"params\":{\"name\":\"negotiation_list\"}}", 429, ""},
		{`{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{"name":"negotiation_list"}}`, 429, ""},
		{`{"id":7,"method":"tools/call","params":{"name":"negotiation_list"}}`, 429, ""},
		{`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"negotiation_list"}}`, 429, ""},
		{`[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"negotiation_list"}}]`, 429, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 429, ""},
	} {
		resp, err := a.Test(httptest.NewRequest("POST", "/", strings.NewReader(c.body)))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != c.status || resp.Header.Get("Retry-After") != "3" || !utf8.Valid(out) || !json.Valid(out) {
			t.Errorf("%q: %d, Retry-After %q, %q; want %d with Retry-After 3 and JSON", c.body, resp.StatusCode, resp.Header.Get("Retry-After"), out, c.status)
			continue
		}
		var got struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				IsError bool `json:"isError"`
			} `json:"result"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if c.status == 200 && (string(got.ID) != c.id || got.Result == nil || !got.Result.IsError) {
			t.Errorf("%q: %s; want a tool error for id %s", c.body, out, c.id)
		}
		if c.status != 200 && got.Error != "the rule" {
			t.Errorf("%q: %s; want {\"error\": the rule}", c.body, out)
		}
	}
}
