package main

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestServeKeysPlainAddressHashes: a database a build before filled keeps
// plain SHA-256 hashes of addresses (a refusal of invitations, a sign-up),
// which anyone holding a backup could test addresses against; serve keys
// them as it starts, and says how many.
func TestServeKeysPlainAddressHashes(t *testing.T) {
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
	p := start(t, env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret}, "serve", "--web=false")
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	var plain, keyed int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE length(email_hash) = 32), count(*) FILTER (WHERE length(email_hash) = 33)
		FROM (SELECT email_hash FROM invite_refusals UNION ALL SELECT email_hash FROM signups) h`).Scan(&plain, &keyed); err != nil {
		t.Fatal(err)
	}
	if plain != 0 || keyed != 2 {
		t.Errorf("after serve started: %d plain hashes, %d keyed; want 0, 2", plain, keyed)
	}
	if log := p.stderr.String(); !strings.Contains(log, `"msg":"the hashes of addresses are keyed","rows":2`) {
		t.Errorf("the log does not say the hashes were keyed:\n%s", log)
	}
}
