package app

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// maxSchema is a schema of the largest size the limits allow: 24 repeated
// text fields of 500 characters.
func maxSchema() json.RawMessage {
	var fields []string
	for i := range 24 {
		fields = append(fields, fmt.Sprintf(`"f%02d":{"type":"string","label":"Field %d","repeated":true,"max_len":500}`, i, i))
	}
	return json.RawMessage("{" + strings.Join(fields, ",") + "}")
}

// maxTerms are terms of maxSchema just under negotiation.MaxTermsBytes
// (about 245 KB), of random letters (as PostgreSQL cannot compress them).
func maxTerms() json.RawMessage {
	var fields []string
	for i := range 24 {
		var vals []string
		for range 20 {
			b := make([]byte, 500)
			for j := range b {
				b[j] = byte('a' + rand.IntN(26))
			}
			vals = append(vals, `"`+string(b)+`"`)
		}
		fields = append(fields, fmt.Sprintf(`"f%02d":[%s]`, i, strings.Join(vals, ",")))
	}
	return json.RawMessage("{" + strings.Join(fields, ",") + "}")
}

// BenchmarkMaxSizeMove: a counter of three options of terms of the largest
// size (about 740 KB, what an MCP request of 1 MB holds) in a room whose
// log holds 40 such moves already (about 30 MB): the cost of one move of
// the account that slowed other tenants (docs/security.md, fairness
// between tenants), in this process (go-µs/op) and in the database's
// backends (pg-µs/op). A move reads its room's latest terms, not the log's
// (roomLogLight), so this does not grow with the log.
func BenchmarkMaxSizeMove(b *testing.B) {
	rb := setupRoomsB(b)
	schema := maxSchema()
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	joined, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	terms := make([]json.RawMessage, 5)
	for i := range terms {
		terms[i] = maxTerms()
	}
	agents, tokens := [2]Agent{rb.a, rb.b}, [2]string{open.RoomToken, joined.RoomToken}
	move := func(n int) {
		in := MoveInput{Verdict: "counter", Options: []json.RawMessage{terms[n%5], terms[(n+1)%5], terms[(n+2)%5]}}
		if n == 0 {
			in.Verdict = "offer"
		}
		if _, err := rb.rooms.Propose(rb.ctx, agents[n%2], tokens[n%2], in); err != nil {
			b.Fatalf("move %d: %v", n, err)
		}
	}
	const logged = 40
	for n := range logged {
		move(n)
	}
	pg0, go0 := backendsCPU(rb.ctx, b, rb.pool), selfCPU()
	b.ResetTimer()
	for n := logged; n < logged+b.N; n++ {
		move(n)
	}
	b.StopTimer()
	reportCPU(rb.ctx, b, rb.pool, pg0, go0)
}
