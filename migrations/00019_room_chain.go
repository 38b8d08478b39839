package migrations

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pressly/goose/v3"

	"github.com/taasky/taasky/negotiation"
)

// Migration 00019 is written in Go because its data step hashes every
// logged event in RFC 8785 (JCS) form (negotiation.ChainLink), which SQL
// cannot write byte for byte (jsonb orders keys by length, not by UTF-16
// code units, and writes numbers its own way); one implementation of the
// rule, the one the store writes with, fills the old rooms too. It runs in
// goose's transaction like the SQL files, wherever Up runs (taasky migrate,
// serve, dev, the tests' template).
//
// What it adds:
//   - room_events.prev_hash: the link each event carries (the hash of the
//     event before it); rooms.head_hash: the last event's hash;
//   - confirmations.channel and decided_by: how and by whom a human's
//     answer came (a receipt names them); users.display_name (from the
//     issuer's "name" claim), the name a receipt gives a human;
//   - receipts: an agreed room's signed receipt, issued once;
//   - installation: one random id made here, once, from which Message-IDs
//     and calendar UIDs are derived so no other database makes the same.
//
// Each provider gets a migration of its own: goose writes into the value it
// is given (the file's path, when the provider's files hold the .go file),
// so a shared one would be written by one provider while another reads it.
func roomChain() *goose.Migration {
	return goose.NewGoMigration(19,
		&goose.GoFunc{RunTx: roomChainUp},
		&goose.GoFunc{RunTx: roomChainDown})
}

// roomChainVersion names the Go migration in Fingerprint: change it with
// the migration (it never changes once released).
const roomChainVersion = "00019_room_chain.go v1"

func roomChainUp(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `
ALTER TABLE room_events ADD COLUMN prev_hash text;
ALTER TABLE rooms ADD COLUMN head_hash text;
ALTER TABLE confirmations
    ADD COLUMN channel text CHECK (channel IN ('dashboard', 'email', 'push', 'invitation')),
    ADD COLUMN decided_by bigint REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE users ADD COLUMN display_name text CHECK (char_length(display_name) BETWEEN 1 AND 200);
CREATE TABLE receipts (
    room_id   bigint PRIMARY KEY REFERENCES rooms (id) ON DELETE CASCADE,
    kid       text NOT NULL,
    jws       text NOT NULL,
    issued_at timestamptz NOT NULL
);
CREATE TABLE installation (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    id         uuid NOT NULL DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO installation DEFAULT VALUES;`); err != nil {
		return err
	}
	return chainOldRooms(ctx, tx)
}

// chainOldRooms writes the links and heads of the rooms logged before the
// chain, a page of rooms at a time.
func chainOldRooms(ctx context.Context, tx *sql.Tx) error {
	after := int64(0)
	for {
		ids, err := roomPage(ctx, tx, after)
		if err != nil || len(ids) == 0 {
			return err
		}
		after = ids[len(ids)-1]
		rows, err := tx.QueryContext(ctx, `SELECT room_id, seq, event FROM room_events
			WHERE room_id >= $1 AND room_id <= $2 ORDER BY room_id, seq`, ids[0], after)
		if err != nil {
			return err
		}
		var roomIDs, headRooms []int64
		var seqs []int32
		var links, heads []string
		room, head := int64(0), negotiation.ChainGenesis
		for rows.Next() {
			var id int64
			var seq int32
			var event string
			if err := rows.Scan(&id, &seq, &event); err != nil {
				rows.Close()
				return err
			}
			if id != room {
				if room != 0 {
					headRooms, heads = append(headRooms, room), append(heads, string(head))
				}
				room, head = id, negotiation.ChainGenesis
			}
			roomIDs, seqs, links = append(roomIDs, id), append(seqs, seq), append(links, string(head))
			if head, err = negotiation.ChainLink(head, int(seq), []byte(event)); err != nil {
				rows.Close()
				return fmt.Errorf("room %d event %d: %w", id, seq, err)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if room != 0 {
			headRooms, heads = append(headRooms, room), append(heads, string(head))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE room_events e SET prev_hash = v.link
			FROM unnest($1::bigint[], $2::int[], $3::text[]) v(room_id, seq, link)
			WHERE e.room_id = v.room_id AND e.seq = v.seq`, roomIDs, seqs, links); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rooms r SET head_hash = v.head
			FROM unnest($1::bigint[], $2::text[]) v(id, head) WHERE r.id = v.id`, ids, headsOf(ids, headRooms, heads)); err != nil {
			return err
		}
	}
}

func roomPage(ctx context.Context, tx *sql.Tx, after int64) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM rooms WHERE id > $1 ORDER BY id LIMIT 1000`, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// headsOf lines the heads up with ids: a room with no event yet has the
// genesis head.
func headsOf(ids, rooms []int64, heads []string) []string {
	by := make(map[int64]string, len(rooms))
	for i, r := range rooms {
		by[r] = heads[i]
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(negotiation.ChainGenesis)
		if h, ok := by[id]; ok {
			out[i] = h
		}
	}
	return out
}

func roomChainDown(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `
DROP TABLE installation;
DROP TABLE receipts;
ALTER TABLE users DROP COLUMN display_name;
ALTER TABLE confirmations DROP COLUMN channel, DROP COLUMN decided_by;
ALTER TABLE rooms DROP COLUMN head_hash;
ALTER TABLE room_events DROP COLUMN prev_hash;`)
	return err
}
