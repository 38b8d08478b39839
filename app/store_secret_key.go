package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// sealedColumn is one column of sealed values that a rotation of
// SECRET_KEY seals again (RotateSecretKey), read in batches in its key's
// order: each row as (k1, k2, value), k2 "" for a key of one column.
// sel takes the last row's (k1, k2) and the batch's size; upd takes the
// arrays k1, k2, old, new and changes a row only while it still holds old
// (a value rewritten meanwhile, say webhook secrets rotated by their
// owner, is the new key's already).
type sealedColumn struct {
	name string
	sel  string
	upd  string
	// text: the value is base64 text in a job's JSON arguments, as
	// encoding/json writes a []byte (it is decoded and encoded in Go:
	// PostgreSQL's encode breaks lines).
	text bool
}

// The jobs' sealed codes and links are sealed again in every state: River
// reads a job's arguments again at each attempt and writes only its state
// when one ends, so a running job retried later opens what is sealed
// again; and it keeps finished jobs (completed and cancelled a day,
// discarded a week) whose code or link still works after its mail went,
// which must not open under the old key once it is gone.

var sealedColumns = []sealedColumn{
	{name: "parties.limits_enc",
		sel: `SELECT room_id, side, limits_enc FROM parties WHERE (room_id, side) > ($1, $2::text) AND octet_length(limits_enc) > 0
			ORDER BY room_id, side LIMIT $3`,
		upd: `UPDATE parties p SET limits_enc = m.new FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::bytea[]) AS m(k1, k2, old, new)
			WHERE p.room_id = m.k1 AND p.side = m.k2 AND p.limits_enc = m.old`},
	{name: "person_seats.link",
		sel: `SELECT room_id, '', link FROM person_seats WHERE room_id > $1 AND $2::text IS NOT NULL ORDER BY room_id LIMIT $3`,
		upd: `UPDATE person_seats s SET link = m.new FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::bytea[]) AS m(k1, k2, old, new)
			WHERE s.room_id = m.k1 AND s.link = m.old`},
	{name: "webhook_endpoints.secrets",
		sel: `SELECT account_id, id::text, secrets FROM webhook_endpoints WHERE (account_id, id) > ($1, coalesce(NULLIF($2::text, '')::bigint, 0))
			ORDER BY account_id, id LIMIT $3`,
		upd: `UPDATE webhook_endpoints e SET secrets = m.new FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::bytea[]) AS m(k1, k2, old, new)
			WHERE e.account_id = m.k1 AND e.id = m.k2::bigint AND e.secrets = m.old`},
	{name: "webhook_messages.payload_sealed",
		sel: `SELECT account_id, id, payload_sealed FROM webhook_messages WHERE (account_id, id) > ($1, $2::text) AND payload_sealed IS NOT NULL
			ORDER BY account_id, id LIMIT $3`,
		upd: `UPDATE webhook_messages w SET payload_sealed = m.new FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::bytea[]) AS m(k1, k2, old, new)
			WHERE w.account_id = m.k1 AND w.id = m.k2 AND w.payload_sealed = m.old`},
	{name: "river_job notify_invite code", text: true,
		sel: `SELECT id, args->>'room_id', args->>'code' FROM river_job WHERE id > $1 AND $2::text IS NOT NULL AND kind = 'notify_invite'
			AND args->>'code' IS NOT NULL ORDER BY id LIMIT $3`,
		upd: `UPDATE river_job j SET args = jsonb_set(j.args, '{code}', to_jsonb(m.new)) FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS m(k1, k2, old, new)
			WHERE j.id = m.k1 AND j.kind = 'notify_invite' AND j.args->>'code' = m.old`},
	{name: "river_job member_invite token", text: true,
		sel: `SELECT id, args->>'invitation_id', args->>'token' FROM river_job WHERE id > $1 AND $2::text IS NOT NULL AND kind = 'member_invite'
			AND args->>'token' IS NOT NULL ORDER BY id LIMIT $3`,
		upd: `UPDATE river_job j SET args = jsonb_set(j.args, '{token}', to_jsonb(m.new)) FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS m(k1, k2, old, new)
			WHERE j.id = m.k1 AND j.kind = 'member_invite' AND j.args->>'token' = m.old`},
	{name: "retired_keys.sealed",
		sel: `SELECT id, purpose, sealed FROM retired_keys WHERE id > $1 AND $2::text IS NOT NULL ORDER BY id LIMIT $3`,
		upd: `UPDATE retired_keys r SET sealed = m.new FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::bytea[]) AS m(k1, k2, old, new)
			WHERE r.id = m.k1 AND r.sealed = m.old`},
}

// sealedRow is a row of a sealedColumn.
type sealedRow struct {
	k1    int64
	k2    string
	value []byte
	text  string // the value as the row holds it, for a text column
}

func selectSealedBatch(ctx context.Context, q querier, c sealedColumn, after sealedRow, n int) ([]sealedRow, error) {
	rows, err := q.Query(ctx, c.sel, after.k1, after.k2, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	defer rows.Close()
	var out []sealedRow
	for rows.Next() {
		var r sealedRow
		var k2 *string
		if c.text {
			err = rows.Scan(&r.k1, &k2, &r.text)
			if err == nil {
				err = json.Unmarshal([]byte(`"`+r.text+`"`), &r.value)
			}
		} else {
			err = rows.Scan(&r.k1, &k2, &r.value)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		if k2 != nil {
			r.k2 = *k2
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	return out, nil
}

// updateSealed writes the batch's new values where the old ones still are,
// and returns how many rows it changed.
func updateSealed(ctx context.Context, q querier, c sealedColumn, rows []sealedRow, values [][]byte) (int64, error) {
	k1 := make([]int64, len(rows))
	k2 := make([]string, len(rows))
	var old, new any
	if c.text {
		o, n := make([]string, len(rows)), make([]string, len(rows))
		for i, r := range rows {
			b, _ := json.Marshal(values[i]) // a []byte: a quoted base64 string
			o[i], n[i] = r.text, string(b[1:len(b)-1])
		}
		old, new = o, n
	} else {
		o := make([][]byte, len(rows))
		for i, r := range rows {
			o[i] = r.value
		}
		old, new = o, values
	}
	for i, r := range rows {
		k1[i], k2[i] = r.k1, r.k2
	}
	tag, err := q.Exec(ctx, c.upd, k1, k2, old, new)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.name, err)
	}
	return tag.RowsAffected(), nil
}

// seatKeyRow is an agent's seat: its token's salt and hash.
type seatKeyRow struct {
	roomID     int64
	side       string
	salt, hash []byte
}

// selectAgentSeats is a batch of the agents' seats after (roomID, side).
func selectAgentSeats(ctx context.Context, q querier, roomID int64, side string, n int) ([]seatKeyRow, error) {
	rows, err := q.Query(ctx, `SELECT room_id, side, token_salt, token_hash FROM parties
		WHERE (room_id, side) > ($1, $2::text) AND account_id IS NOT NULL AND octet_length(token_salt) > 0
		ORDER BY room_id, side LIMIT $3`, roomID, side, n)
	if err != nil {
		return nil, fmt.Errorf("selectAgentSeats: %w", err)
	}
	defer rows.Close()
	var out []seatKeyRow
	for rows.Next() {
		var r seatKeyRow
		if err := rows.Scan(&r.roomID, &r.side, &r.salt, &r.hash); err != nil {
			return nil, fmt.Errorf("selectAgentSeats: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// updateSeatTokenHashes sets the seats' token hashes to new where they
// still are old, keeping prev (the old token, keyed: prevTokenHash).
func updateSeatTokenHashes(ctx context.Context, q querier, roomIDs []int64, sides []string, old, new, prev [][]byte) (int64, error) {
	tag, err := q.Exec(ctx, `WITH m AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::bytea[], $5::bytea[]) AS m(room_id, side, old, new, prev)),
		changed AS (UPDATE parties p SET token_hash = m.new FROM m
			WHERE p.room_id = m.room_id AND p.side = m.side AND p.token_hash = m.old RETURNING p.room_id, p.side)
		INSERT INTO party_tokens_before (token_hmac, room_id, side)
		SELECT m.prev, m.room_id, m.side FROM m JOIN changed c ON c.room_id = m.room_id AND c.side = m.side
		ON CONFLICT (token_hmac) DO NOTHING`, roomIDs, sides, old, new, prev)
	if err != nil {
		return 0, fmt.Errorf("updateSeatTokenHashes: %w", err)
	}
	return tag.RowsAffected(), nil
}

// insertRetiredKey keeps a retired key, sealed, once (by its fingerprint);
// it says whether the key was new.
func insertRetiredKey(ctx context.Context, q querier, purpose string, fingerprint, sealed []byte) (bool, error) {
	tag, err := q.Exec(ctx, `INSERT INTO retired_keys (purpose, fingerprint, sealed) VALUES ($1, $2, $3)
		ON CONFLICT (fingerprint) DO NOTHING`, purpose, fingerprint, sealed)
	if err != nil {
		return false, fmt.Errorf("insertRetiredKey: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// selectRetiredKeys are the sealed retired keys of purpose, oldest first.
func selectRetiredKeys(ctx context.Context, q querier, purpose string) ([][]byte, error) {
	rows, err := q.Query(ctx, `SELECT sealed FROM retired_keys WHERE purpose = $1 ORDER BY id`, purpose)
	if err != nil {
		return nil, fmt.Errorf("selectRetiredKeys: %w", err)
	}
	var out [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return nil, fmt.Errorf("selectRetiredKeys: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// recordKeyCheck sets the installation's key fingerprint to check, when it
// is previous or check already (a fingerprint of a third key is left, and
// reported: false).
func recordKeyCheck(ctx context.Context, q querier, check, previous []byte) (bool, error) {
	tag, err := q.Exec(ctx, `UPDATE installation SET key_check = $1, key_check_next = NULL
		WHERE (key_check = $2 OR key_check = $1 OR key_check IS NULL) AND (key_check_next IS NULL OR key_check_next = $1)`, check, previous)
	if err != nil {
		return false, fmt.Errorf("recordKeyCheck: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// receiptKeyRow is a row of receipt_keys.
type receiptKeyRow struct {
	kid      string
	jwk, mac []byte
}

// insertReceiptKeys keeps public receipt keys (a kid kept already is
// left).
func insertReceiptKeys(ctx context.Context, q querier, rows []receiptKeyRow) error {
	kids, jwks, macs := make([]string, len(rows)), make([]string, len(rows)), make([][]byte, len(rows))
	for i, r := range rows {
		kids[i], jwks[i], macs[i] = r.kid, string(r.jwk), r.mac
	}
	if _, err := q.Exec(ctx, `INSERT INTO receipt_keys (kid, jwk, mac) SELECT * FROM unnest($1::text[], $2::jsonb[], $3::bytea[])
		ON CONFLICT (kid) DO NOTHING`, kids, jwks, macs); err != nil {
		return fmt.Errorf("insertReceiptKeys: %w", err)
	}
	return nil
}

// selectReceiptKeys are the kept public receipt keys, oldest first.
func selectReceiptKeys(ctx context.Context, q querier) ([]receiptKeyRow, error) {
	rows, err := q.Query(ctx, `SELECT kid, jwk::text, mac FROM receipt_keys ORDER BY published_at, kid`)
	if err != nil {
		return nil, fmt.Errorf("selectReceiptKeys: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (receiptKeyRow, error) {
		var r receiptKeyRow
		var jwk string
		err := row.Scan(&r.kid, &jwk, &r.mac)
		r.jwk = []byte(jwk)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectReceiptKeys: %w", err)
	}
	return out, nil
}

// updateReceiptKeyMAC sets a kept key's MAC to mac where it is still old.
func updateReceiptKeyMAC(ctx context.Context, q querier, kid string, old, mac []byte) (int64, error) {
	tag, err := q.Exec(ctx, `UPDATE receipt_keys SET mac = $3 WHERE kid = $1 AND mac = $2`, kid, old, mac)
	if err != nil {
		return 0, fmt.Errorf("updateReceiptKeyMAC: %w", err)
	}
	return tag.RowsAffected(), nil
}

// selectKeyCheck is the installation's key fingerprint (nil: none yet).
func selectKeyCheck(ctx context.Context, q querier) (kept, next []byte, err error) {
	if err := q.QueryRow(ctx, `SELECT key_check, key_check_next FROM installation`).Scan(&kept, &next); err != nil {
		return nil, nil, fmt.Errorf("selectKeyCheck: %w", err)
	}
	return kept, next, nil
}
