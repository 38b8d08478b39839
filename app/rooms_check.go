package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// CheckReport is what the consistency checker found.
type CheckReport struct {
	Rooms       int
	Differences []string // one line per room whose stored state is not its replay
}

// Check verifies every room's hash chain (negotiation.CheckChain: each
// event links to the one before, the room's head to the last), then
// replays its log through negotiation.Replay and compares the result with
// the stored room, byte for byte.
func (s *Rooms) Check(ctx context.Context) (*CheckReport, error) {
	rep := &CheckReport{}
	ids, err := selectRoomIDs(ctx, s.pool)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	for _, id := range ids {
		rep.Rooms++
		if diff, err := s.checkRoom(ctx, id); err != nil {
			return nil, err
		} else if diff != "" {
			rep.Differences = append(rep.Differences, fmt.Sprintf("room %d: %s", id, diff))
		}
	}
	return rep, nil
}

func (s *Rooms) checkRoom(ctx context.Context, id int64) (string, error) {
	if broken, err := checkChain(ctx, s.pool, id); err != nil || broken != "" {
		return broken, err
	}
	row, err := readRoom(ctx, s.pool, id, false)
	if err != nil {
		return "", err
	}
	if len(row.log) != row.Seq {
		return fmt.Sprintf("%d events logged, the room says %d", len(row.log), row.Seq), nil
	}
	events, err := row.events()
	if err != nil {
		return err.Error(), nil
	}
	if diff, err := checkLight(ctx, s.pool, row, events); err != nil || diff != "" {
		return diff, err
	}
	limits, sealed, err := s.partyLimits(row, "")
	if err != nil {
		return "", err
	}
	if sealed != nil {
		// Named, and the other rooms still checked: after a start over
		// with a new key, every room opened before is one of these.
		return sealed.Error(), nil
	}
	replayed, err := negotiation.Replay(events, limits)
	if err != nil {
		return err.Error(), nil
	}
	if logged := events[0].Title; logged != nil { // logged since 2026-12-03
		if stored := deref(row.Title); stored != *logged {
			return fmt.Sprintf("the room's title is %q, its open event's %q", stored, *logged), nil
		}
	}
	if err := keepNoDealOfJoin(row, replayed); err != nil {
		return err.Error(), nil
	}
	if err := withholdAsStored(row, replayed); err != nil {
		return err.Error(), nil
	}
	if !strings.Contains(row.Snapshot, `"answered":`) {
		// Written before rooms kept their humans' unapplied answers
		// (2026-12-03), or with none to keep: the replay's are not compared.
		replayed.Answered = [2]*negotiation.HumanAnswer{}
	}
	if got := string(replayed.Snapshot()); got != row.Snapshot {
		return fmt.Sprintf("stored %s, replayed %s", row.Snapshot, got), nil
	}
	c, err := selectRoomColumns(ctx, s.pool, id)
	if err != nil {
		return "", err
	}
	want := storedColumns{state: string(replayed.State), closedReason: string(replayed.ClosedReason), round: fmt.Sprint(replayed.Round),
		turn: string(replayed.Turn), deadline: replayed.Deadline, expiresAt: replayed.ExpiresAt}
	if c.state != want.state || c.closedReason != want.closedReason || c.round != want.round || c.turn != want.turn ||
		!sameMicros(c.deadline, want.deadline) || !sameMicros(c.expiresAt, want.expiresAt) {
		return fmt.Sprintf("columns say %s/%s round %s turn %q deadline %s expires %s, replay %s/%s round %s turn %q deadline %s expires %s",
			c.state, c.closedReason, c.round, c.turn, c.deadline.UTC().Format(time.RFC3339Nano), c.expiresAt.UTC().Format(time.RFC3339Nano),
			want.state, want.closedReason, want.round, want.turn, want.deadline.UTC().Format(time.RFC3339Nano), want.expiresAt.UTC().Format(time.RFC3339Nano)), nil
	}
	return "", nil
}

// keepNoDealOfJoin: the fields on which no deal was possible were
// computed at the join from both sides' limits, and the replay takes them
// as stored when they cannot or need not be computed again: a deleted
// account's limits are erased (eraseAccount); and a room joined before
// money bounds in two currencies were listed (2026-12-06) kept its fields
// without those (negotiation.Room.NoDealInTwoCurrencies). Everything else
// is replayed.
func keepNoDealOfJoin(row *roomRow, replayed *negotiation.Room) error {
	erased := slices.ContainsFunc(row.Parties[:], func(p *partyRow) bool { return p != nil && p.erased() })
	twoCurrencies := replayed.NoDealInTwoCurrencies()
	if !erased && len(twoCurrencies) == 0 {
		return nil
	}
	var stored struct {
		NoDeal []string `json:"no_deal"`
	}
	if err := json.Unmarshal([]byte(row.Snapshot), &stored); err != nil {
		return fmt.Errorf("stored snapshot: %w", err)
	}
	before := slices.DeleteFunc(slices.Clone(replayed.NoDeal), func(f string) bool { return slices.Contains(twoCurrencies, f) })
	if erased || slices.Equal(stored.NoDeal, before) {
		replayed.NoDeal = stored.NoDeal
	}
	return nil
}

// withholdAsStored: the join withheld the verdicts the rule between two
// accounts withholds (negotiation.WithheldNoDeal), from the marks of
// earlier rooms (purged after 30 days), which the replay does not have;
// the stored room names them (no_deal_withheld, never shown), and the
// replay withholds the same. A stored room that names a field its replay
// did not list still differs.
func withholdAsStored(row *roomRow, replayed *negotiation.Room) error {
	var stored struct {
		Withheld []string `json:"no_deal_withheld"`
	}
	if err := json.Unmarshal([]byte(row.Snapshot), &stored); err != nil {
		return fmt.Errorf("stored snapshot: %w", err)
	}
	if slices.ContainsFunc(row.Parties[:], func(p *partyRow) bool { return p != nil && p.erased() }) {
		replayed.NoDealWithheld = stored.Withheld // as keepNoDealOfJoin: a deleted side's limits are gone
		return nil
	}
	replayed.WithholdNoDealFields(stored.Withheld)
	return nil
}

// checkLight compares the log as moves and reads see it (roomLogLight:
// earlier offers and counters by the columns kind, side, at and verdict)
// with the events logged: a stub must say what its event says, and every
// other entry is the event itself ("" when they agree). It reads the log
// light by a statement of its own, after row's: the events a move logged
// between (the checker runs beside the service) are left to the next
// check, as a stub stands for its own event only.
func checkLight(ctx context.Context, q querier, row *roomRow, events []negotiation.Event) (string, error) {
	light, err := selectEvents(ctx, q, row.ID, true)
	if err != nil {
		return "", err
	}
	if len(light) > len(row.log) {
		light = light[:len(row.log)]
	}
	if len(light) != len(row.log) {
		return fmt.Sprintf("the light log has %d events, the log %d", len(light), len(row.log)), nil
	}
	for i, text := range light {
		if text == row.log[i] {
			continue
		}
		var stub loggedEvent
		if err := json.Unmarshal([]byte(text), &stub.Event); err != nil || !stub.elided() {
			return fmt.Sprintf("event %d: the light log has %.200s", i+1, text), nil
		}
		ev := events[i]
		if ev.Kind != stub.Kind || ev.Side != stub.Side || ev.Verdict != stub.Verdict || !ev.At.Equal(stub.At) {
			return fmt.Sprintf("event %d: its columns say %s %s %s at %s, the event %s %s %s at %s", i+1,
				stub.Kind, stub.Side, stub.Verdict, stub.At.UTC().Format(time.RFC3339Nano), ev.Kind, ev.Side, ev.Verdict, ev.At.UTC().Format(time.RFC3339Nano)), nil
		}
	}
	return "", nil
}

// checkChain names the first broken link of a room's log ("" for none).
func checkChain(ctx context.Context, q querier, id int64) (string, error) {
	events, links, head, err := selectChain(ctx, q, id)
	if err != nil {
		return "", err
	}
	b := negotiation.CheckChain(events, links, head)
	switch {
	case b == nil:
		return "", nil
	case b.Link == 1:
		return fmt.Sprintf("hash chain broken at event 1: it carries %q, not the genesis link", b.Got), nil
	case b.Link > len(events):
		return fmt.Sprintf("hash chain broken at event %d: it hashes to %s, the room's head says %q", b.Link-1, b.Want, b.Got), nil
	}
	return fmt.Sprintf("hash chain broken at event %d: it hashes to %s, event %d carries %q", b.Link-1, b.Want, b.Link, b.Got), nil
}

// sameMicros compares a stored moment (PostgreSQL keeps microseconds) with
// a replayed one (Go keeps nanoseconds).
func sameMicros(stored, replayed time.Time) bool {
	d := stored.Sub(replayed)
	return d > -time.Microsecond && d < time.Microsecond
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
