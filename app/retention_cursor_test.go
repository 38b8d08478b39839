package app

import (
	"context"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestRetentionWalkCarriesOn: a purge whose budget covers one statement
// of the delivery log's walk (a clock that moves a second at each reading
// and a budget of five, shared with the two other walks of its period) on
// 1,000 users, the first 500 with a line kept
// (a day old), the last 500 with one to delete (100 days old). Each purge
// used to walk again from the first user: every hour the same kept lines,
// and the old ones beyond never. Each purge now carries on where the last
// stopped, and a run of them goes through the whole table.
func TestRetentionWalkCarriesOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	now := time.Now().UTC()
	if _, err := pool.Exec(ctx, `WITH u AS (INSERT INTO users (email)
			SELECT 'walk' || i || '@example.test' FROM generate_series(1, 1000) i RETURNING id)
		INSERT INTO notification_deliveries (user_id, job_id, channel, topic, recipient, status, created_at, updated_at)
		SELECT id, id, 'email', 'request', 'x@example.test', 'sent', t, t
		FROM (SELECT id, CASE WHEN row_number() OVER (ORDER BY id) <= 500 THEN $1::timestamptz ELSE $2 END AS t FROM u) l`,
		now.Add(-day), now.Add(-100*day)); err != nil {
		t.Fatal(err)
	}
	old := func() (n int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM notification_deliveries WHERE created_at < $1`, now.Add(-90*day)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ret := NewRetention(pool, RetentionPeriods{DeliveryLog: 90 * day})
	tick := time.Unix(0, 0)
	ret.clock = func() time.Time { tick = tick.Add(time.Second); return tick }
	// One statement a purge (100 users): 10 statements, and the one that
	// finds no user left.
	deleted := 0
	for run := 1; run <= 12 && old() > 0; run++ {
		out, err := ret.PurgeOld(ctx, now, tick.Add(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		deleted += out["notification_deliveries"]
	}
	if left := old(); left != 0 || deleted != 500 {
		t.Fatalf("after 12 purges of one statement each: %d old lines deleted, %d left; want 500, none", deleted, left)
	}
	var kept int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM notification_deliveries`).Scan(&kept); err != nil || kept != 500 {
		t.Fatalf("%d lines kept (%v), want the 500 of yesterday", kept, err)
	}
}

// TestRetentionAddressWalkCarriesOn: the same for the walk of the rooms'
// invitation addresses, in their index's (address) order: 2,500 rooms
// still open invited "a…" addresses (kept), 500 closed 40 days ago "z…"
// ones (to forget). A purge's budget covers one window of the walk (500
// rows) now, and covered the whole of its four seconds before (4
// windows): every purge walked the open rooms' addresses again and never
// reached the others.
func TestRetentionAddressWalkCarriesOn(t *testing.T) {
	rb := setupRooms(t)
	rb.askB(t, "", 11, "")
	at := time.Unix(0, rb.clock.Load()).UTC()
	var cols string
	if err := rb.pool.QueryRow(rb.ctx, `SELECT string_agg(column_name, ', ') FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'rooms'
		  AND column_name NOT IN ('id', 'invite_code_hash', 'state', 'closed_reason', 'invite_email', 'updated_at')`).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.pool.Exec(rb.ctx, `INSERT INTO rooms (`+cols+`, invite_code_hash, state, closed_reason, invite_email, updated_at)
		SELECT `+cols+`, sha256(convert_to('walk' || i, 'UTF8')),
			CASE WHEN i <= 2500 THEN 'draft' ELSE 'closed' END, CASE WHEN i <= 2500 THEN NULL ELSE 'expired' END,
			CASE WHEN i <= 2500 THEN 'a' ELSE 'z' END || lpad(i::text, 4, '0') || '@example.test', $1
		FROM (SELECT * FROM rooms ORDER BY id LIMIT 1) r, generate_series(1, 3000) i`, at.Add(-40*day)); err != nil {
		t.Fatal(err)
	}
	left := func() (n int) {
		t.Helper()
		if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM rooms WHERE invite_email LIKE 'z%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ret := NewRetention(rb.pool, RetentionPeriods{OneTap: 30 * day})
	tick := time.Unix(0, 0)
	ret.clock = func() time.Time { tick = tick.Add(time.Second); return tick }
	forgotten := 0
	for run := 1; run <= 8 && left() > 0; run++ {
		out, err := ret.PurgeOld(rb.ctx, at, tick.Add(6*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		forgotten += out["person_addresses"]
	}
	if n := left(); n != 0 || forgotten != 500 {
		t.Fatalf("after 8 purges: %d rooms' addresses forgotten, %d left; want 500, none", forgotten, n)
	}
	var kept int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM rooms WHERE invite_email LIKE 'a%'`).Scan(&kept); err != nil || kept != 2500 {
		t.Fatalf("%d open rooms' addresses kept (%v), want 2500", kept, err)
	}
}
