package app

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// noteSchema is one repeated text field: terms of about size bytes.
const noteSchema = `{"note":{"type":"string","label":"Note","repeated":true,"max_len":500}}`

func noteTerms(size int) json.RawMessage {
	var vals []string
	for range size / 500 {
		b := make([]byte, 500)
		for i := range b {
			b[i] = byte('a' + rand.IntN(26)) // incompressible enough: PostgreSQL keeps it as it is
		}
		vals = append(vals, `"`+string(b)+`"`)
	}
	return json.RawMessage(`{"note":[` + strings.Join(vals, ",") + `]}`)
}

// TestMoveReadsOnlyTheLatestTerms: a move (and a read without history)
// reads the terms of the room's latest move only, whatever the log holds:
// terms of the largest size in a long log made each move read and decode
// megabytes, and slowed every other tenant's moves on the process
// (docs/security.md, fairness between tenants). Earlier offers and
// counters come as stubs that still give what a move uses of them (the
// rounds, each side's latest offer or counter, the detail asked), the
// whole history is one read away, and the checker holds the stubs to
// their events.
func TestMoveReadsOnlyTheLatestTerms(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	const size = 20_000
	open, err := rb.rooms.Open(ctx, rb.a, OpenInput{Schema: json.RawMessage(noteSchema), Subject: noteTerms(size)})
	if err != nil {
		t.Fatal(err)
	}
	joined, err := rb.rooms.Join(ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: json.RawMessage(noteSchema)})
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[negotiation.Side]string{negotiation.SideA: open.RoomToken, negotiation.SideB: joined.RoomToken}
	agents := map[negotiation.Side]Agent{negotiation.SideA: rb.a, negotiation.SideB: rb.b}
	side := negotiation.SideB
	tabled := []negotiation.SubjectHash{open.View.TermsOnTable.Options[0].SubjectHash}
	for i := range 8 {
		in := MoveInput{Verdict: negotiation.VerdictCounter, Subject: noteTerms(size)}
		if i >= 6 { // each side's latest counter is then further back than its latest move
			in = MoveInput{Verdict: negotiation.VerdictNeedMoreDetail, Fields: []string{"note"}}
		}
		v, err := rb.rooms.Propose(ctx, agents[side], tokens[side], in)
		if err != nil {
			t.Fatalf("move %d: %v", i, err)
		}
		if in.Verdict == negotiation.VerdictCounter {
			tabled = append(tabled, v.TermsOnTable.Options[0].SubjectHash)
		}
		side = side.Other()
	}
	const rounds = 9 // the opening offer and 8 moves

	// What a move reads: the latest move's terms, not the log's.
	tx, err := rb.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	light, _, err := selectSeat(ctx, tx, rb.rooms.seatHashOf(tokens[side]), agents[side].AccountID, agents[side].OwnerUserID, true)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := selectRoom(ctx, tx, light.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	read, logged := 0, 0
	for i := range whole.log {
		read, logged = read+len(light.log[i]), logged+len(whole.log[i])
	}
	if len(light.log) != len(whole.log) || read > 2*size+10_000 {
		t.Fatalf("a move read %d events, %d bytes, of a log of %d events, %d bytes: more than its latest terms", len(light.log), read, len(whole.log), logged)
	}
	lightLog, err := rb.rooms.logCache.decode(light)
	if err != nil {
		t.Fatal(err)
	}
	wholeLog, err := rb.rooms.logCache.decode(whole)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []negotiation.Side{negotiation.SideA, negotiation.SideB} {
		if got, want := negotiation.LastTabled(events(lightLog), s), negotiation.LastTabled(events(wholeLog), s); !got.Equal(want) || want.IsZero() {
			t.Errorf("side %s: latest offer or counter at %v from the light log, %v from the log", s, got, want)
		}
	}
	tx.Rollback(ctx)

	// A read: every round, the latest with its terms; the history whole.
	v, err := rb.rooms.Read(ctx, agents[side], tokens[side])
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Rounds) != rounds || !v.Elided() || v.Rounds[rounds-1].Verdict != negotiation.VerdictNeedMoreDetail ||
		len(v.DetailAsked) != 1 || v.Rounds[0].Terms != nil {
		last := v.Rounds[len(v.Rounds)-1]
		t.Fatalf("read: %d rounds (elided %v), the latest %s by %s, detail asked %v", len(v.Rounds), v.Elided(), last.Verdict, last.By, v.DetailAsked)
	}
	h, err := rb.rooms.ReadHistory(ctx, agents[side], tokens[side])
	if err != nil {
		t.Fatal(err)
	}
	var got []negotiation.SubjectHash
	for _, r := range h.Rounds {
		if len(r.Terms) == 1 {
			got = append(got, r.Terms[0].SubjectHash)
		}
	}
	if h.Elided() || len(h.Rounds) != rounds || fmt.Sprint(got) != fmt.Sprint(tabled) {
		t.Fatalf("history: %d rounds (elided %v), terms %v, tabled %v", len(h.Rounds), h.Elided(), got, tabled)
	}
	rb.checkClean(t)

	// The checker holds a stub to its event.
	var seq int
	if err := rb.pool.QueryRow(ctx, `UPDATE room_events SET verdict = 'offer' WHERE (room_id, seq) =
		(SELECT room_id, min(seq) FROM room_events WHERE room_id = $1 AND side = 'b' AND verdict = 'counter' GROUP BY room_id)
		RETURNING seq`, v.RoomID).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	rep, err := rb.rooms.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) != 1 || !strings.Contains(rep.Differences[0], fmt.Sprintf("event %d: its columns say propose b offer", seq)) {
		t.Fatalf("check after a verdict changed: %q", rep.Differences)
	}
}

// TestEventOfFinerMomentIsReadWhole: a stub takes its event's moment from
// room_events.at (microseconds), so an event whose moment is finer (a
// simulated clock) is logged without its verdict, and read whole: a stub
// never says another moment than its event.
func TestEventOfFinerMomentIsReadWhole(t *testing.T) {
	t.Parallel()
	row := &roomRow{ID: 1, Seq: 3, Head: "sha256:00"}
	ev := &negotiation.Event{Kind: negotiation.EventPropose, Side: negotiation.SideA, Verdict: negotiation.VerdictCounter,
		At: time.Date(2026, 12, 7, 10, 0, 0, 1_500, time.UTC), Terms: []json.RawMessage{json.RawMessage(`{}`)}}
	w, _, err := eventWrite(row, ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := w.args[len(w.args)-1]; v != "" {
		t.Errorf("an event at %s logged with verdict %q", ev.At.Format(time.RFC3339Nano), v)
	}
	ev.At = ev.At.Truncate(time.Microsecond)
	if w, _, _ = eventWrite(row, ev, nil); w.args[len(w.args)-1] != "counter" {
		t.Errorf("an event at %s logged with verdict %q", ev.At.Format(time.RFC3339Nano), w.args[len(w.args)-1])
	}
}

// TestStubMomentWhateverTheSessionZone: a stub's moment is its event's in
// whatever TimeZone the database's session has. json_build_object wrote a
// timestamptz in the session's zone, with that zone's offset, which for
// some zones' past moments has seconds (Africa/Monrovia's -00:44:30 until
// 1972): Go's time does not read that offset, and the move or read failed
// to decode its room's log.
func TestStubMomentWhateverTheSessionZone(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	if _, err := rb.rooms.Propose(ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	v, err := rb.rooms.Propose(ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(11, "")})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := rb.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// The offer (now a stub) at a moment of 1971, column and event alike.
	const at = "1971-06-01T10:00:00.123456Z"
	if _, err := tx.Exec(ctx, `UPDATE room_events SET at = $2::timestamptz, event = jsonb_set(event::jsonb, '{at}', to_jsonb($2::text))::text
		WHERE room_id = $1 AND verdict = 'offer'`, v.RoomID, at); err != nil {
		t.Fatal(err)
	}
	want, _ := time.Parse(time.RFC3339Nano, at)
	for _, zone := range []string{"UTC", "Europe/Berlin", "America/St_Johns", "Africa/Monrovia", "Europe/Amsterdam"} {
		if _, err := tx.Exec(ctx, `SELECT set_config('TimeZone', $1, true)`, zone); err != nil {
			t.Fatal(err)
		}
		light, err := selectEvents(ctx, tx, v.RoomID, true)
		if err != nil {
			t.Fatal(err)
		}
		log, err := rb.rooms.logCache.decode(&roomRow{ID: v.RoomID, log: light})
		if err != nil {
			t.Errorf("session zone %s: %v", zone, err)
			continue
		}
		var stubs int
		for _, e := range log {
			if e.elided() {
				stubs++
				if !e.At.Equal(want) {
					t.Errorf("session zone %s: the stub says %s, its event %s", zone, e.At.Format(time.RFC3339Nano), at)
				}
			}
		}
		if stubs != 1 {
			t.Errorf("session zone %s: %d stubs, want the offer's", zone, stubs)
		}
	}
}

// TestCheckLightBesideAMove: the checker reads a room's log light by a
// statement of its own, after the room's: a move logged between (the
// checker runs beside the service) is no difference. It reported "the
// light log has 4 events, the log 3".
func TestCheckLightBesideAMove(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	v, err := rb.rooms.Propose(ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	row, err := readRoom(ctx, rb.pool, v.RoomID, false)
	if err != nil {
		t.Fatal(err)
	}
	events, err := row.events()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.Propose(ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(11, "")}); err != nil {
		t.Fatal(err)
	}
	if diff, err := checkLight(ctx, rb.pool, row, events); err != nil || diff != "" {
		t.Errorf("a move between the checker's reads: %q %v", diff, err)
	}
	// A light log shorter than the log read before it is one still.
	row.log = append(row.log, row.log[len(row.log)-1], row.log[len(row.log)-1])
	events = append(events, events[len(events)-1], events[len(events)-1])
	if diff, err := checkLight(ctx, rb.pool, row, events); err != nil || !strings.Contains(diff, "the light log has 4 events, the log 5") {
		t.Errorf("a light log shorter than the log: %q %v", diff, err)
	}
}

// TestMixedLogAndNoProposal: a log whose earlier events were logged before
// migration 00047 (no verdict column) reads those whole, and the newer
// earlier offers and counters as stubs; a room with no proposal yet reads
// its log whole. The checker finds both sound.
func TestMixedLogAndNoProposal(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	v, err := rb.rooms.Read(ctx, rb.a, ta)
	if err != nil || v.Elided() || len(v.Rounds) != 0 {
		t.Fatalf("a room without a proposal: %v, elided %v", err, v != nil && v.Elided())
	}
	moves := []struct {
		token string
		agent Agent
		in    MoveInput
	}{
		{ta, rb.a, MoveInput{Verdict: "offer", Subject: meeting(10, "")}},
		{tb, rb.b, MoveInput{Verdict: "counter", Subject: meeting(11, "")}},
		{ta, rb.a, MoveInput{Verdict: "counter", Subject: meeting(12, "")}},
	}
	for _, m := range moves {
		if _, err := rb.rooms.Propose(ctx, m.agent, m.token, m.in); err != nil {
			t.Fatal(err)
		}
	}
	// The offer as an older build logged it.
	if _, err := rb.pool.Exec(ctx, `UPDATE room_events SET verdict = NULL WHERE room_id = $1 AND verdict = 'offer'`, v.RoomID); err != nil {
		t.Fatal(err)
	}
	rb.rooms.views = newViewCache() // the read's kept view is of before
	v, err = rb.rooms.Read(ctx, rb.b, tb)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Rounds) != 3 || len(v.Rounds[0].Terms) != 1 || len(v.Rounds[1].Terms) != 0 || len(v.Rounds[2].Terms) != 1 || !v.Elided() {
		t.Errorf("rounds' terms: %d, want the offer's (logged without a verdict), the counter's left out, the latest's", len(v.Rounds))
		for _, r := range v.Rounds {
			t.Logf("%s by %s: %d terms", r.Verdict, r.By, len(r.Terms))
		}
	}
	rb.checkClean(t)
}
