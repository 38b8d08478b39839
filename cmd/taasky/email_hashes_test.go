package main

import (
	"crypto/sha256"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestUserKeyAddresses: a database a build before filled keeps plain
// SHA-256 hashes of addresses (a refusal of invitations, a sign-up), which
// anyone holding a backup could test addresses against. serve leaves them
// (a process of that build, still running beside it in a rolling upgrade,
// finds only plain ones); `taasky user key-addresses` keys them, says how
// many, and changes nothing run again.
func TestUserKeyAddresses(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDSN(t)
	pool, err := pgxpool.New(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	refused := sha256.Sum256([]byte("refused@example.test"))
	signedUp := sha256.Sum256([]byte("founder@example.test"))
	if _, err := pool.Exec(t.Context(), `WITH r AS (INSERT INTO invite_refusals (email_hash, refused_at) VALUES ($1, now()))
		INSERT INTO signups (email_hash, at) VALUES ($2, now())`, refused[:], signedUp[:]); err != nil {
		t.Fatal(err)
	}
	e := env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0", "SECRET_KEY": testSecret}
	counts := func() (plain, keyed int) {
		t.Helper()
		if err := pool.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE length(email_hash) = 32), count(*) FILTER (WHERE length(email_hash) = 33)
			FROM (SELECT email_hash FROM invite_refusals UNION ALL SELECT email_hash FROM signups) h`).Scan(&plain, &keyed); err != nil {
			t.Fatal(err)
		}
		return plain, keyed
	}
	p := start(t, e, "serve", "--web=false")
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	if plain, keyed := counts(); plain != 2 || keyed != 0 {
		t.Errorf("after serve started: %d plain hashes, %d keyed; want them left plain (2, 0)", plain, keyed)
	}
	for _, want := range []string{"2 hashes of addresses keyed", "0 hashes of addresses keyed"} {
		var out strings.Builder
		if err := run(t.Context(), []string{"user", "key-addresses"}, e.get, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("key-addresses said %q, want %q", out.String(), want)
		}
	}
	if plain, keyed := counts(); plain != 0 || keyed != 2 {
		t.Errorf("after key-addresses: %d plain hashes, %d keyed; want 0, 2", plain, keyed)
	}
}
