package app

import (
	"context"
	"sync/atomic"
)

// installation is the database's installation id (migration 00019: made
// once, at random), read once per process: Message-IDs and calendar UIDs
// are derived from it (jobs.UniqueID) so that no other database makes the
// same ones.
type installation struct{ id atomic.Pointer[string] }

func (i *installation) get(ctx context.Context, q querier) (string, error) {
	if id := i.id.Load(); id != nil {
		return *id, nil
	}
	id, err := selectInstallation(ctx, q)
	if err != nil {
		return "", err
	}
	i.id.Store(&id)
	return id, nil
}
