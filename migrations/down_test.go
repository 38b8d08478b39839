package migrations_test

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/migrations"
)

// TestRecentDownsAndUpAgain: the newest migrations' Down sections work (a
// developer's way back; releases only go up) and keep the rooms' order:
// ranks move back into parties and out again, and the rank trigger works
// on either side until migration 22 hands the ranks to the move's
// statement.
func TestRecentDownsAndUpAgain(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, provider := emptyDatabase(t)
	if err := migrations.Up(ctx, pool); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// A joined room, a's turn: a ranks 2 (its agent's turn), b 3.
	var account, room int64
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (slug, name) VALUES ('down-test', 'Down') RETURNING id`).Scan(&account); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `INSERT INTO rooms (account_id, invite_code_hash, title, state, round, turn, deadline,
		expires_at, seq, snapshot, opened_at, updated_at)
		VALUES ($1, decode(repeat('01', 32), 'hex'), 'Down', 'awaiting', 1, 'a', now() + interval '1 day',
		now() + interval '3 days', 0, '', now(), now()) RETURNING id`, account).Scan(&room); err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO parties (room_id, side, account_id, token_hash, token_salt, limits_enc, schema_fp, joined_at)
		VALUES ($1, 'a', $2, decode(repeat('0a', 32), 'hex'), '\x00', '\x00', 'fp', now()),
		       ($1, 'b', $2, decode(repeat('0b', 32), 'hex'), '\x00', '\x00', 'fp', now())`, room, account)
	// The ranks as a move writes them (app.updateRoom).
	exec(`UPDATE party_ranks SET rank = CASE side WHEN 'a' THEN 2 ELSE 3 END WHERE room_id = $1`, room)
	ranks := func(table string) string {
		t.Helper()
		var got string
		if err := pool.QueryRow(ctx, `SELECT string_agg(side || rank, ' ' ORDER BY side) FROM `+table+` WHERE room_id = $1`,
			room).Scan(&got); err != nil {
			t.Fatalf("ranks in %s: %v", table, err)
		}
		return got
	}
	if got := ranks("party_ranks"); got != "a2 b3" {
		t.Fatalf("ranks %q, want a2 b3", got)
	}
	if _, err := provider.DownTo(ctx, 9); err != nil {
		t.Fatalf("down to 9: %v", err)
	}
	if got := ranks("parties"); got != "a2 b3" {
		t.Fatalf("down to 9: ranks in parties %q, want a2 b3", got)
	}
	exec(`UPDATE rooms SET turn = 'b' WHERE id = $1`, room) // the trigger, as it was
	if got := ranks("parties"); got != "a3 b2" {
		t.Fatalf("down to 9, b's turn: ranks in parties %q, want a3 b2", got)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if got := ranks("party_ranks"); got != "a3 b2" {
		t.Fatalf("up again: ranks %q, want a3 b2", got)
	}
	// Down to 21 the trigger on rooms sets the ranks again; from 22 on
	// the move's own statement does, and a bare UPDATE leaves them.
	if _, err := provider.DownTo(ctx, 21); err != nil {
		t.Fatalf("down to 21: %v", err)
	}
	exec(`UPDATE rooms SET turn = 'a' WHERE id = $1`, room)
	if got := ranks("party_ranks"); got != "a2 b3" {
		t.Fatalf("down to 21, a's turn: ranks %q, want a2 b3", got)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	exec(`UPDATE rooms SET turn = 'b' WHERE id = $1`, room)
	if got := ranks("party_ranks"); got != "a2 b3" {
		t.Fatalf("up at 22, a bare update: ranks %q, want a2 b3 as they were", got)
	}
}

// emptyDatabase is a database of its own with nothing in it, and goose's
// provider of these migrations on it (closed with the test).
func emptyDatabase(t *testing.T) (*pgxpool.Pool, *goose.Provider) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), pgtest.NewEmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { db.Close() })
	provider, err := migrations.NewProvider(db, os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	return pool, provider
}
