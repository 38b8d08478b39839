package bench

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// Seats mints a seat's secrets with the keys of the server under test
// (app.Rooms.NewSeatSecrets), so that it can read the rooms seeded.
type Seats func(roomID int64, side negotiation.Side, limits []byte) app.SeatSecrets

// SeedRooms fills the database with n rooms between agents a and b, each
// opened, joined and offered, for measuring lists at scale (taasky bench
// --scale). The protocol plays one room; the rows are then written with
// COPY, each room with its own ids, tokens, invitation and sealed limits,
// so the consistency checker replays every one of them. It returns a's
// token of the last room. The rooms go in transactions of seedChunk rooms,
// so that ten million fit in memory.
//
// The statements are the bench's own, against the schema: the service has
// no use case that writes rooms without playing them.
func SeedRooms(ctx context.Context, pool *pgxpool.Pool, seats Seats, a, b app.Agent, n int) (string, error) {
	p, err := playRoom(time.Now(), nil)
	if err != nil {
		return "", err
	}
	var last string
	keep := func(r SeededRoom) { last = r.Tokens[0] }
	for done := 0; done < n; done += seedChunk {
		err := seed(ctx, pool, seats, min(seedChunk, n-done), func(int) [2]app.Agent { return [2]app.Agent{a, b} },
			func(int) *played { return p }, keep)
		if err != nil {
			return "", err
		}
	}
	return last, nil
}

// SeededRoom is a room SeedPairs wrote: its id and both sides' tokens (a's,
// then b's).
type SeededRoom struct {
	ID     int64
	Tokens [2]string
}

// SeedPairs writes one room per pair (side a, side b) as SeedRooms does:
// opened, joined, a's offer on the table, b's turn.
func SeedPairs(ctx context.Context, pool *pgxpool.Pool, seats Seats, pairs [][2]app.Agent) ([]SeededRoom, error) {
	p, err := playRoom(time.Now(), nil)
	if err != nil {
		return nil, err
	}
	out := make([]SeededRoom, 0, len(pairs))
	keep := func(r SeededRoom) { out = append(out, r) }
	for done := 0; done < len(pairs); done += seedChunk {
		chunk := pairs[done:min(done+seedChunk, len(pairs))]
		if err := seed(ctx, pool, seats, len(chunk), func(i int) [2]app.Agent { return chunk[i] },
			func(int) *played { return p }, keep); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SeedDue is SeedRooms with a deadline for each room: room i lapses at
// deadlines[i] unless somebody moves (the sweep's measure). Each room is
// played with its own deadline.
func SeedDue(ctx context.Context, pool *pgxpool.Pool, seats Seats, a, b app.Agent, deadlines []time.Time) error {
	now := time.Now()
	ps := make([]*played, len(deadlines))
	for i := range deadlines {
		var err error
		if ps[i], err = playRoom(now, &deadlines[i]); err != nil {
			return err
		}
	}
	for done := 0; done < len(ps); done += seedChunk {
		chunk := ps[done:min(done+seedChunk, len(ps))]
		if err := seed(ctx, pool, seats, len(chunk), func(int) [2]app.Agent { return [2]app.Agent{a, b} },
			func(i int) *played { return chunk[i] }, func(SeededRoom) {}); err != nil {
			return err
		}
	}
	return nil
}

// seedChunk is how many rooms one transaction seeds.
const seedChunk = 100_000

// played is a room the protocol played (open, join, offer), as its rows
// hold it.
type played struct {
	room      *negotiation.Room
	now       time.Time
	events    []negotiation.Event
	eventJSON [][]byte
	links     []string // each event's link in the room's chain
	head      negotiation.SubjectHash
	snapshot  string
	fp        string
}

func playRoom(now time.Time, deadline *time.Time) (*played, error) {
	schema := json.RawMessage(`{"meeting_time":{"type":"timerange","label":"Meeting time"},"fee":{"type":"money","label":"Fee","currency":"EUR"}}`)
	room, events, _, err := negotiation.Open(negotiation.OpenRequest{Schema: schema, Deadline: deadline, Title: "seeded"}, now)
	if err != nil {
		return nil, err
	}
	room, join, err := room.Join(schema, nil, now)
	if err != nil {
		return nil, err
	}
	room, offer, err := room.Propose(negotiation.SideA, negotiation.Move{Verdict: negotiation.VerdictOffer,
		Subject: json.RawMessage(`{"meeting_time":{"start":"2026-12-03T10:00:00Z","end":"2026-12-03T10:30:00Z"},"fee":{"amount":"100","currency":"EUR"}}`)}, now)
	if err != nil {
		return nil, err
	}
	p := &played{room: room, now: now, events: append(events, join, offer), head: negotiation.ChainGenesis}
	for i := range p.events {
		b, _ := json.Marshal(&p.events[i])
		p.eventJSON = append(p.eventJSON, b)
		p.links = append(p.links, string(p.head))
		if p.head, err = negotiation.ChainLink(p.head, i+1, b); err != nil {
			return nil, err
		}
	}
	p.snapshot = string(room.Snapshot())
	p.fp = string(room.Party(negotiation.SideA).Schema.Fingerprint())
	return p, nil
}

// seed writes n rooms in one transaction: room i between the agents
// pairOf(i) as roomOf(i) played it; keep is told of each.
func seed(ctx context.Context, pool *pgxpool.Pool, seats Seats, n int, pairOf func(i int) [2]app.Agent,
	roomOf func(i int) *played, keep func(SeededRoom)) error {
	var first int64
	if err := pool.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('rooms', 'id'))`).Scan(&first); err != nil {
		return fmt.Errorf("seed: reserve room ids: %w", err)
	}
	if _, err := pool.Exec(ctx, `SELECT setval(pg_get_serial_sequence('rooms', 'id'), $1)`, first+int64(n)); err != nil {
		return fmt.Errorf("seed: reserve room ids: %w", err)
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var roomRows, partyRows, eventRows [][]any
		for i := range n {
			id, p, pair := first+int64(i), roomOf(i), pairOf(i)
			room := p.room
			roomRows = append(roomRows, []any{id, pair[0].AccountID, inviteCodeHash(), "seeded", string(room.State), room.Round,
				string(room.Turn), room.Deadline, room.ExpiresAt, len(p.events), p.snapshot, p.now, p.now, string(p.head)})
			seeded := SeededRoom{ID: id}
			for s, side := range []negotiation.Side{negotiation.SideA, negotiation.SideB} {
				seat := seats(id, side, []byte("{}"))
				seeded.Tokens[s] = seat.Token
				partyRows = append(partyRows, []any{id, string(side), pair[s].AccountID, pair[s].ID, pair[s].OwnerUserID,
					seat.TokenHash, seat.TokenSalt, seat.LimitsSealed, p.fp, p.now})
			}
			keep(seeded)
			for j, ev := range p.events {
				eventRows = append(eventRows, []any{id, j + 1, string(ev.Kind), nullSide(ev.Side), string(p.eventJSON[j]), ev.At, p.links[j]})
			}
		}
		copies := []struct {
			table string
			cols  []string
			rows  [][]any
		}{
			{"rooms", []string{"id", "account_id", "invite_code_hash", "title", "state", "round", "turn", "deadline", "expires_at", "seq", "snapshot", "opened_at", "updated_at", "head_hash"}, roomRows},
			{"parties", []string{"room_id", "side", "account_id", "agent_id", "owner_user_id", "token_hash", "token_salt", "limits_enc", "schema_fp", "joined_at"}, partyRows},
			{"room_events", []string{"room_id", "seq", "kind", "side", "event", "at", "prev_hash"}, eventRows},
		}
		for _, c := range copies {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
				return fmt.Errorf("seed %s: %w", c.table, err)
			}
		}
		// The dashboard's order of the seeded rooms, as a move sets it.
		return app.RerankRooms(ctx, tx, first, first+int64(n))
	})
}

// inviteCodeHash is the hash of an invitation code nobody holds: a
// seeded room is joined already.
func inviteCodeHash() []byte {
	h := sha256.Sum256([]byte(rand.Text()))
	return h[:]
}

func nullSide(s negotiation.Side) any {
	if s == "" {
		return nil
	}
	return string(s)
}
