package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// SeedRooms fills the store with n rooms between agents a and b, each
// opened, joined and offered, for measuring lists at scale (taasky bench
// --scale). The protocol plays one room; the rows are then written with
// COPY, each room with its own ids, tokens, invitation and sealed limits,
// so the consistency checker replays every one of them. It returns a's
// token of the last room.
func (s *Rooms) SeedRooms(ctx context.Context, a, b Agent, n int) (string, error) {
	now := s.now()
	schema := json.RawMessage(`{"meeting_time":{"type":"timerange","label":"Meeting time"},"fee":{"type":"money","label":"Fee","currency":"EUR"}}`)
	room, events, _, err := negotiation.Open(negotiation.OpenRequest{Schema: schema}, now)
	if err != nil {
		return "", err
	}
	room, join, err := room.Join(schema, nil, now)
	if err != nil {
		return "", err
	}
	room, offer, err := room.Propose(negotiation.SideA, negotiation.Move{Verdict: negotiation.VerdictOffer,
		Subject: json.RawMessage(`{"meeting_time":{"start":"2026-12-03T10:00:00Z","end":"2026-12-03T10:30:00Z"},"fee":{"amount":"100","currency":"EUR"}}`)}, now)
	if err != nil {
		return "", err
	}
	events = append(events, join, offer)
	var eventJSON [][]byte
	for i := range events {
		b, _ := json.Marshal(&events[i])
		eventJSON = append(eventJSON, b)
	}
	snapshot := string(room.Snapshot())
	fp := string(room.Party(negotiation.SideA).Schema.Fingerprint())
	var first int64
	if err := s.pool.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('rooms', 'id'))`).Scan(&first); err != nil {
		return "", err
	}
	if _, err := s.pool.Exec(ctx, `SELECT setval(pg_get_serial_sequence('rooms', 'id'), $1)`, first+int64(n)); err != nil {
		return "", err
	}
	var last string
	err = s.inTx(ctx, func(tx *roomTx) error {
		var roomRows, partyRows, eventRows [][]any
		for i := range int64(n) {
			id := first + i
			roomRows = append(roomRows, []any{id, a.AccountID, secretHash(newInviteCode()), "seeded", string(room.State), room.Round,
				string(room.Turn), room.Deadline, room.ExpiresAt, len(events), snapshot, now, now})
			for _, p := range []struct {
				side  string
				agent Agent
			}{{"a", a}, {"b", b}} {
				salt := randomBytes(16)
				token := s.roomToken(id, p.side, salt)
				if p.side == "a" {
					last = token
				}
				partyRows = append(partyRows, []any{id, p.side, p.agent.AccountID, p.agent.ID, p.agent.OwnerUserID,
					secretHash(token), salt, s.sealLimits(id, p.side, []byte("{}")), fp, now})
			}
			for j, ev := range events {
				eventRows = append(eventRows, []any{id, j + 1, string(ev.Kind), nullSide(ev.Side), string(eventJSON[j]), ev.At})
			}
		}
		copies := []struct {
			table string
			cols  []string
			rows  [][]any
		}{
			{"rooms", []string{"id", "account_id", "invite_code_hash", "title", "state", "round", "turn", "deadline", "expires_at", "seq", "snapshot", "opened_at", "updated_at"}, roomRows},
			{"parties", []string{"room_id", "side", "account_id", "agent_id", "owner_user_id", "token_hash", "token_salt", "limits_enc", "schema_fp", "joined_at"}, partyRows},
			{"room_events", []string{"room_id", "seq", "kind", "side", "event", "at"}, eventRows},
		}
		for _, c := range copies {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
				return fmt.Errorf("seed %s: %w", c.table, err)
			}
		}
		// Touch each room once so that whatever derives from a room's
		// change (the dashboard's ranks) is derived for the seeded ones too.
		_, err := tx.Exec(ctx, `UPDATE rooms SET updated_at = updated_at WHERE id >= $1 AND id < $2`, first, first+int64(n))
		return err
	})
	return last, err
}

func nullSide(s negotiation.Side) any {
	if s == "" {
		return nil
	}
	return string(s)
}
