package app

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCheckRoomJoinedBeforeTwoCurrencies: money bounds in two currencies
// are a field on which no deal is possible since 2026-12-06; a room joined
// before kept no such field in its snapshot (NoDeal is computed at the
// join, once). taasky check replays such a room as it was joined, and
// still names a room whose stored no_deal lacks a field for another
// reason.
func TestCheckRoomJoinedBeforeTwoCurrencies(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	free := json.RawMessage(`{"fee":{"type":"money","label":"Fee"},"qty":{"type":"int","label":"Qty"}}`)
	join := func(openLimits, joinLimits string) int64 {
		t.Helper()
		open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: free, Limits: json.RawMessage(openLimits)})
		if err != nil {
			t.Fatal(err)
		}
		j, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: free, Limits: json.RawMessage(joinLimits)})
		if err != nil {
			t.Fatal(err)
		}
		v, err := rb.rooms.Read(rb.ctx, rb.b, j.RoomToken)
		if err != nil {
			t.Fatal(err)
		}
		return v.RoomID
	}
	// The other rule's field stays listed as before.
	twoCurrencies := join(`{"fee":{"max":{"amount":"500","currency":"EUR"}},"qty":{"max":3}}`, `{"fee":{"max":{"amount":"500","currency":"USD"}},"qty":{"min":4}}`)
	sameCurrency := join(`{"fee":{"max":{"amount":"100","currency":"EUR"}}}`, `{"fee":{"min":{"amount":"500","currency":"EUR"}}}`)
	rb.checkClean(t)
	// As the join of the version before wrote them: no fee in no_deal.
	for _, id := range []int64{twoCurrencies, sameCurrency} {
		tag, err := rb.pool.Exec(rb.ctx, `UPDATE rooms SET snapshot = replace(replace(snapshot, '"fee",', ''), '"no_deal":["fee"],', '') WHERE id = $1`, id)
		if err != nil || tag.RowsAffected() != 1 {
			t.Fatal(tag, err)
		}
	}
	rep, err := rb.rooms.Check(rb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) != 1 || !strings.HasPrefix(rep.Differences[0], fmt.Sprintf("room %d: ", sameCurrency)) {
		t.Fatalf("check: %d of %d rooms differ:\n%s", len(rep.Differences), rep.Rooms, strings.Join(rep.Differences, "\n"))
	}
}
