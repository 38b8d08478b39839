package oauthserver

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestLockConflictIsTemporarilyUnavailable: a token request whose
// storage PostgreSQL failed with a deadlock or a serialization failure is
// answered temporarily_unavailable with Retry-After (unavailable), as a
// database that did not answer: never invalid_client, on which a client
// throws its registration away, nor a 500.
func TestLockConflictIsTemporarilyUnavailable(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"40P01", "40001"} {
		if err := storageError(fmt.Errorf("refresh: %w", &pgconn.PgError{Code: code})); !unavailable(err) {
			t.Errorf("SQLSTATE %s: %v; want unavailable", code, err)
		}
	}
	if unavailable(storageError(&pgconn.PgError{Code: "23505"})) {
		t.Error("a unique violation: want not unavailable")
	}
}
