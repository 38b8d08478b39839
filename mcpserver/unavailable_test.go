package mcpserver

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taasky/taasky/app"
)

// TestLockConflictAnsweredAsRetry: a move PostgreSQL failed with a
// deadlock or a serialization failure (rolled back whole) tells the agent
// to send it again, with retry_after, not "internal error".
func TestLockConflictAnsweredAsRetry(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"40P01", "40001"} {
		err := fmt.Errorf("move: %w", &pgconn.PgError{Code: code})
		if got := answerOf(err); got != app.RetryMessage {
			t.Errorf("SQLSTATE %s: %q, want the retry message", code, got)
		}
		if res := refusal(err); !res.IsError || res.Meta["retry_after"] == nil {
			t.Errorf("SQLSTATE %s: %+v, want a tool error with retry_after", code, res)
		}
	}
}
