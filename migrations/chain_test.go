package migrations_test

import (
	"fmt"
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestRoomChainFillsOldRooms: migration 00019 chains the events logged
// before it, with the rule the store writes by, gives a room without
// events the genesis head, makes the installation's id once, and goes
// down and up again.
func TestRoomChainFillsOldRooms(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, provider := emptyDatabase(t)
	if _, err := provider.UpTo(ctx, 18); err != nil {
		t.Fatal(err)
	}
	var account int64
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (slug, name) VALUES ('chain-test', 'Chain') RETURNING id`).Scan(&account); err != nil {
		t.Fatal(err)
	}
	events := []string{`{"kind":"open","side":"a","at":"2026-10-12T09:00:00Z"}`, `{"kind":"join","side":"b","at":"2026-10-12T09:05:00Z","schema":{"x":{"type":"int","label":"X <1>"}}}`}
	var rooms [2]int64
	for i := range rooms {
		if err := pool.QueryRow(ctx, `INSERT INTO rooms (account_id, invite_code_hash, title, state, round, turn, deadline,
			expires_at, seq, snapshot, opened_at, updated_at)
			VALUES ($1, sha256(convert_to($2::text, 'UTF8')), 'Chain', 'awaiting', 1, 'a', now() + interval '1 day',
			now() + interval '3 days', 2, '', now(), now()) RETURNING id`, account, fmt.Sprint(i)).Scan(&rooms[i]); err != nil {
			t.Fatal(err)
		}
	}
	for seq, ev := range events {
		if _, err := pool.Exec(ctx, `INSERT INTO room_events (room_id, seq, kind, event, at) VALUES ($1, $2, 'x', $3, now())`,
			rooms[0], seq+1, ev); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatal(err)
	}
	want := negotiation.ChainGenesis
	var err error
	for seq, ev := range events {
		var link string
		if err := pool.QueryRow(ctx, `SELECT prev_hash FROM room_events WHERE room_id = $1 AND seq = $2`, rooms[0], seq+1).Scan(&link); err != nil {
			t.Fatal(err)
		}
		if negotiation.SubjectHash(link) != want {
			t.Errorf("event %d: link %s, want %s", seq+1, link, want)
		}
		if want, err = negotiation.ChainLink(want, seq+1, []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range []negotiation.SubjectHash{want, negotiation.ChainGenesis} {
		var head string
		if err := pool.QueryRow(ctx, `SELECT head_hash FROM rooms WHERE id = $1`, rooms[i]).Scan(&head); err != nil {
			t.Fatal(err)
		}
		if negotiation.SubjectHash(head) != w {
			t.Errorf("room %d: head %s, want %s", i, head, w)
		}
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM installation`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("installation rows %d (%v), want 1", n, err)
	}
	if _, err := provider.DownTo(ctx, 18); err != nil {
		t.Fatalf("down: %v", err)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
}
