package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestInputSchemasAgreeWithTheProtocol validates calls against the
// published input schemas with a validator of go-sdk's: a client that
// checks its arguments before calling must be able to make every legal
// move (DESIGN §2: need_more_detail may name fields, and the vectors ask
// without any) and is told early of shapes the server refuses.
func TestInputSchemasAgreeWithTheProtocol(t *testing.T) {
	t.Parallel()
	subject := `{"fee":{"amount":"10","currency":"EUR"}}`
	cases := []struct {
		tool, args string
		valid      bool
	}{
		{"negotiation_propose", `{"room_token":"rt","verdict":"need_more_detail"}`, true},
		{"negotiation_propose", `{"room_token":"rt","verdict":"need_more_detail","fields":["fee"]}`, true},
		{"negotiation_propose", `{"room_token":"rt","verdict":"need_more_detail","fields":[]}`, false},
		{"negotiation_propose", `{"room_token":"rt","verdict":"need_more_detail","subject":` + subject + `}`, false},
		{"negotiation_propose", `{"room_token":"rt","verdict":"offer","subject":` + subject + `}`, true},
		{"negotiation_propose", `{"room_token":"rt","verdict":"counter","options":[` + subject + `,` + subject + `]}`, true},
		{"negotiation_propose", `{"room_token":"rt","verdict":"offer"}`, false},
		{"negotiation_propose", `{"room_token":"rt","verdict":"offer","subject":` + subject + `,"fields":["fee"]}`, false},
		{"negotiation_propose", `{"room_token":"rt","verdict":"counter","subject":` + subject + `,"options":[` + subject + `,` + subject + `]}`, false},
		{"negotiation_list", `{}`, true},
		{"negotiation_list", `{"room_tokens":["rt"]}`, true},
		{"negotiation_list", `{"room_tokens":[]}`, false},
		{"negotiation_list", `{"room_tokens":["rt"],"cursor":"5"}`, false},
		{"negotiation_respond", `{"room_token":"rt","verdict":"reject"}`, true},
		{"negotiation_respond", `{"room_token":"rt","verdict":"approve"}`, false},
	}
	resolved := map[string]*jsonschema.Resolved{}
	for _, c := range cases {
		rs := resolved[c.tool]
		if rs == nil {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(inputSchemas[c.tool]), &s); err != nil {
				t.Fatalf("%s: %v", c.tool, err)
			}
			var err error
			if rs, err = s.Resolve(nil); err != nil {
				t.Fatalf("%s: %v", c.tool, err)
			}
			resolved[c.tool] = rs
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(c.args), &args); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(args); (err == nil) != c.valid {
			t.Errorf("%s %s: valid %v, want %v (%v)", c.tool, c.args, err == nil, c.valid, err)
		}
	}
}
