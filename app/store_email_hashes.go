package app

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// KeyEmailHashes keys the hashes of addresses a build before kept plain
// (32 bytes: a keyed one is 33) in invite_refusals and signups, where they
// are (keyedEmailHash of the plain hash), under the key derived from
// tokenKey (RoomsConfig.TokenKey). serve and dev run it at start; running
// it again, or from several processes at once, changes nothing more (a
// row another process keyed first is no longer plain when this one's
// statement reaches it). It returns how many rows it keyed.
func KeyEmailHashes(ctx context.Context, pool *pgxpool.Pool, tokenKey []byte) (int64, error) {
	key := emailKeyOf(tokenKey)
	var keyed int64
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		keyed = 0
		for _, table := range []string{"invite_refusals", "signups"} {
			rows, _ := tx.Query(ctx, `SELECT DISTINCT email_hash FROM `+table+` WHERE length(email_hash) = 32`)
			plain, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
			if err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
			if len(plain) == 0 {
				continue
			}
			hashed := make([][]byte, len(plain))
			for i, p := range plain {
				hashed[i] = keyedEmailHash(key, p)
			}
			var tag interface{ RowsAffected() int64 }
			if table == "invite_refusals" {
				// An address may have both (a refusal written again by a
				// process of this build): the earlier refusal is kept.
				tag, err = tx.Exec(ctx, `WITH plain AS (DELETE FROM invite_refusals f USING unnest($1::bytea[], $2::bytea[]) AS m(plain, keyed)
						WHERE f.email_hash = m.plain RETURNING m.keyed, f.refused_at)
					INSERT INTO invite_refusals (email_hash, refused_at) SELECT keyed, refused_at FROM plain
					ON CONFLICT (email_hash) DO UPDATE SET refused_at = least(invite_refusals.refused_at, excluded.refused_at)`, plain, hashed)
			} else {
				tag, err = tx.Exec(ctx, `UPDATE signups s SET email_hash = m.keyed FROM unnest($1::bytea[], $2::bytea[]) AS m(plain, keyed)
					WHERE s.email_hash = m.plain`, plain, hashed)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
			keyed += tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("key the hashes of addresses: %w", err)
	}
	return keyed, nil
}
