package trust

import (
	"encoding/json"
	"strings"
	"testing"
)

var fuzzTools = []string{"negotiation_open", "negotiation_join", "negotiation_list", "negotiation_read",
	"negotiation_propose", "negotiation_respond", "negotiation_cancel"}

// FuzzToolArguments posts arbitrary arguments to each tool through the real
// HTTP endpoint and handler, as b's agent in a room where b is to answer.
// $TA, $TB, $INV and $H in the input stand for a's and b's room tokens, a
// live invitation and the hash on the table, so the fuzzer reaches past
// the token checks. Whatever comes in: no 5xx, an answer or one clear line,
// and a refused call changes nothing.
//
//	go test ./trust -run XXX -fuzz FuzzToolArguments -fuzztime 5m
func FuzzToolArguments(f *testing.F) {
	for i, tool := range fuzzTools {
		base := toolArgs[tool].base
		f.Add(uint8(i), []byte(base))
		f.Add(uint8(i), []byte(`{}`))
	}
	for i, c := range badCases() {
		if i%9 != 0 {
			continue
		}
		for j, tool := range fuzzTools {
			if tool == c.tool {
				f.Add(uint8(j), []byte(c.args))
			}
		}
	}
	f.Add(uint8(4), []byte(`{"room_token":"$TB","verdict":"counter","subject":`+goodTerms(map[string]string{"qty": "5"})+`}`))
	f.Add(uint8(4), []byte(`{"room_token":"$TB","verdict":"need_more_detail","fields":["fee"]}`))
	f.Add(uint8(5), []byte(`{"room_token":"$TB","verdict":"reject"}`))

	s := newStack(f, stackConfig{tenants: 2})
	a, b := s.tenants[0], s.tenants[1]
	var schema, offer map[string]any
	_ = json.Unmarshal([]byte(richSchema), &schema)
	_ = json.Unmarshal([]byte(goodTerms(nil)), &offer)
	var vars *strings.Replacer
	room := func() {
		ta, tb, _ := s.pair(a, b, schema, nil, nil, offer)
		inv := a.must("negotiation_open", map[string]any{"subject_schema": schema}).str("invite_code")
		hash := tableHash(b.must("negotiation_read", map[string]any{"room_token": tb}).out)
		vars = strings.NewReplacer("$TA", ta, "$TB", tb, "$INV", inv, "$H", hash)
	}
	room()
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		s.t = t // the target runs one input at a time: the stack reports to it
		defer func() { s.t = f }()
		tool := fuzzTools[int(which)%len(fuzzTools)]
		before := s.quickState()
		ans := s.rawPost("/mcp/"+b.slug, b.key, toolCall(tool, []byte(vars.Replace(string(args)))), nil)
		if ans.status >= 500 {
			t.Fatalf("%s %q: HTTP %d %s", tool, args, ans.status, ans.body)
		}
		if ans.ok {
			if s.quickState() != before {
				room() // a move was made: start again from a room where b is to answer
			}
			return
		}
		if strings.ContainsAny(ans.msg, "\n") || ans.msg == "" || strings.Contains(ans.msg, "internal error") {
			t.Fatalf("%s %q: HTTP %d, told %q", tool, args, ans.status, ans.msg)
		}
		if after := s.quickState(); after != before {
			t.Fatalf("%s %q: refused (%q) but changed what is stored", tool, args, ans.msg)
		}
	})
}

// quickState is a cheap fingerprint of what a move changes.
func (s *stack) quickState() string {
	var out string
	err := s.pool.QueryRow(s.ctx, `SELECT (SELECT count(*) || ':' || coalesce(sum(seq), 0) FROM rooms) || '#' ||
		(SELECT count(*) || ':' || count(*) FILTER (WHERE status = 'pending') FROM confirmations) || '#' ||
		(SELECT count(*) FROM parties)`).Scan(&out)
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}
