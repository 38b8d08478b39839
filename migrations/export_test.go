package migrations

import (
	"context"
	"database/sql"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pressly/goose/v3"
)

// UpWaiting is Up with a test's migrations and lock waits.
func UpWaiting(ctx context.Context, pool *pgxpool.Pool, newProvider func(*sql.DB) (*goose.Provider, error),
	timeout, pause time.Duration, tries int) error {
	return up(ctx, pool, newProvider, lockWait{timeout: timeout, pause: pause, tries: tries})
}
