package app

import (
	"encoding/hex"
	"testing"
	"time"
)

// TestKeyEmailHashes: the hashes of addresses a build before kept plain
// (a refusal, a sign-up) still count until they are keyed, and
// KeyEmailHashes keys them where they are, once: then no plain hash is
// left, the refusal still holds, the sign-up still counts, and an address
// kept both ways is kept once.
func TestKeyEmailHashes(t *testing.T) {
	t.Parallel()
	rb := setupRoomsB(t)
	ctx, q, key := rb.ctx, rb.pool, rb.rooms.emailKey
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := q.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	// As a build before wrote them; "both@" refused again by this build.
	for _, email := range []string{"old@example.test", "both@example.test"} {
		exec(`INSERT INTO invite_refusals (email_hash, refused_at) VALUES ($1, $2)`, plainEmailHash(email), at)
	}
	if err := insertInviteRefusal(ctx, q, emailHash(key, "both@example.test"), at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO signups (email_hash, at) VALUES ($1, $2)`, plainEmailHash("ann@example.test"), at)
	refused := func(email string) bool {
		t.Helper()
		r, err := selectInviteRefused(ctx, q, emailHashes(key, email))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	signedUp := func() int {
		t.Helper()
		var n int
		if err := q.QueryRow(ctx, `SELECT count(*) FROM signups WHERE email_hash = ANY($1)`, emailHashes(key, "ann@example.test")).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if !refused("old@example.test") || !refused("OLD@example.test") || refused("new@example.test") || signedUp() != 1 {
		t.Fatalf("before keying: old refused %v, new refused %v, ann's sign-ups %d", refused("old@example.test"), refused("new@example.test"), signedUp())
	}
	n, err := KeyEmailHashes(ctx, q, rb.rooms.tokenKey)
	if err != nil || n != 3 {
		t.Fatalf("keyed %d rows (%v), want 3", n, err)
	}
	plain := map[string]string{}
	for _, email := range []string{"old@example.test", "both@example.test", "ann@example.test"} {
		plain[email] = hex.EncodeToString(plainEmailHash(email))
	}
	if held := tablesHolding(t, ctx, q, plain); len(held) > 0 {
		t.Errorf("plain hashes left: %v", held)
	}
	var rows int
	var first time.Time
	if err := q.QueryRow(ctx, `SELECT count(*), min(refused_at) FROM invite_refusals`).Scan(&rows, &first); err != nil || rows != 2 || !first.Equal(at) {
		t.Errorf("refusals: %d rows, the first at %v (%v); want 2, %v", rows, first, err, at)
	}
	if !refused("old@example.test") || !refused("both@example.test") || signedUp() != 1 {
		t.Errorf("after keying: old refused %v, both refused %v, ann's sign-ups %d", refused("old@example.test"), refused("both@example.test"), signedUp())
	}
	if n, err := KeyEmailHashes(ctx, q, rb.rooms.tokenKey); err != nil || n != 0 {
		t.Errorf("keyed again: %d rows (%v), want 0", n, err)
	}
}
