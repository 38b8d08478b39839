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
// token of the last room.
//
// The statements are the bench's own, against the schema: the service has
// no use case that writes rooms without playing them.
func SeedRooms(ctx context.Context, pool *pgxpool.Pool, seats Seats, a, b app.Agent, n int) (string, error) {
	pairs := make([][2]app.Agent, n)
	for i := range pairs {
		pairs[i] = [2]app.Agent{a, b}
	}
	rooms, err := SeedPairs(ctx, pool, seats, pairs)
	if err != nil || len(rooms) == 0 {
		return "", err
	}
	return rooms[len(rooms)-1].Tokens[0], nil
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
	n := len(pairs)
	if n == 0 {
		return nil, nil
	}
	now := time.Now()
	schema := json.RawMessage(`{"meeting_time":{"type":"timerange","label":"Meeting time"},"fee":{"type":"money","label":"Fee","currency":"EUR"}}`)
	room, events, _, err := negotiation.Open(negotiation.OpenRequest{Schema: schema}, now)
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
	events = append(events, join, offer)
	var eventJSON [][]byte
	var links []string // each event's link in the room's chain
	head := negotiation.ChainGenesis
	for i := range events {
		b, _ := json.Marshal(&events[i])
		eventJSON = append(eventJSON, b)
		links = append(links, string(head))
		if head, err = negotiation.ChainLink(head, i+1, b); err != nil {
			return nil, err
		}
	}
	snapshot := string(room.Snapshot())
	fp := string(room.Party(negotiation.SideA).Schema.Fingerprint())
	var first int64
	if err := pool.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('rooms', 'id'))`).Scan(&first); err != nil {
		return nil, fmt.Errorf("seed: reserve room ids: %w", err)
	}
	if _, err := pool.Exec(ctx, `SELECT setval(pg_get_serial_sequence('rooms', 'id'), $1)`, first+int64(n)); err != nil {
		return nil, fmt.Errorf("seed: reserve room ids: %w", err)
	}
	out := make([]SeededRoom, 0, n)
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var roomRows, partyRows, eventRows [][]any
		for i := range int64(n) {
			id := first + i
			roomRows = append(roomRows, []any{id, pairs[i][0].AccountID, inviteCodeHash(), "seeded", string(room.State), room.Round,
				string(room.Turn), room.Deadline, room.ExpiresAt, len(events), snapshot, now, now, string(head)})
			seeded := SeededRoom{ID: id}
			for s, p := range []struct {
				side  negotiation.Side
				agent app.Agent
			}{{negotiation.SideA, pairs[i][0]}, {negotiation.SideB, pairs[i][1]}} {
				seat := seats(id, p.side, []byte("{}"))
				seeded.Tokens[s] = seat.Token
				partyRows = append(partyRows, []any{id, string(p.side), p.agent.AccountID, p.agent.ID, p.agent.OwnerUserID,
					seat.TokenHash, seat.TokenSalt, seat.LimitsSealed, fp, now})
			}
			out = append(out, seeded)
			for j, ev := range events {
				eventRows = append(eventRows, []any{id, j + 1, string(ev.Kind), nullSide(ev.Side), string(eventJSON[j]), ev.At, links[j]})
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
		// Touch each room once so that whatever derives from a room's
		// change (the dashboard's ranks) is derived for the seeded ones too.
		if _, err := tx.Exec(ctx, `UPDATE rooms SET updated_at = updated_at WHERE id >= $1 AND id < $2`, first, first+int64(n)); err != nil {
			return fmt.Errorf("seed: touch rooms: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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
