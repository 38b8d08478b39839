package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/go-jose/go-jose/v4"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/receipt"
)

// Rotating SECRET_KEY (docs/operations.md): every process is restarted
// with the new key as SECRET_KEY and the old one as SECRET_KEY_PREVIOUS;
// each then opens, verifies and finds what either key made, and makes
// new things under the new one only. RotateSecretKey then seals and keys
// again, under the new key, what the database keeps under the old one,
// and records the new key's fingerprint; after it SECRET_KEY_PREVIOUS can
// be removed.

// SecretKeys are the keys RotateSecretKey works with, each derived from
// SECRET_KEY (Limits…) and from SECRET_KEY_PREVIOUS (Previous…) with
// config.Config.Key and PreviousKey.
type SecretKeys struct {
	Limits, PreviousLimits               []byte // "limits"
	Token, PreviousToken                 []byte // "room-tokens"
	MemberInvites, PreviousMemberInvites []byte // "member-invites"
	KeyCheck, PreviousKeyCheck           []byte // "key-check"
	// PreviousReceipts are the public receipt keys derived from
	// SECRET_KEY_PREVIOUS, kept published (receipt.Keyring.Public).
	PreviousReceipts []jose.JSONWebKey
}

// Rotation is what RotateSecretKey did.
type Rotation struct {
	// Resealed counts the values sealed again under the new key, by
	// column (sealedColumns' names).
	Resealed map[string]int64
	// Unopened counts the values that open under neither key (sealed
	// under a third, or altered), left as they are, by column.
	Unopened map[string]int64
	// RoomTokens is how many agents' seats were given the new key's room
	// token (the previous key's no longer opens them).
	RoomTokens int64
	// EmailKeyKept: the previous key of the addresses' hashes was kept
	// (retired_keys), false when it was kept already.
	EmailKeyKept bool
	// ReceiptKeys is how many public receipt keys the database keeps.
	ReceiptKeys int
}

// ErrNotRotating refuses RotateSecretKey without SECRET_KEY_PREVIOUS.
var ErrNotRotating = errors.New("SECRET_KEY_PREVIOUS is not set: set SECRET_KEY to the new key and SECRET_KEY_PREVIOUS to the one it replaces, " +
	"restart every process with both, then run this command (see \"Rotating SECRET_KEY\" in docs/operations.md)")

// ErrKeyCheckThird refuses RotateSecretKey when the installation's key
// fingerprint is neither key's.
var ErrKeyCheckThird = errors.New("the database's key fingerprint is neither SECRET_KEY's nor SECRET_KEY_PREVIOUS's: " +
	"SECRET_KEY_PREVIOUS must be the key the installation's processes used until now")

const emailHashPurpose = "email-hash"

// RotateSecretKey seals again under the new key every value the database
// keeps sealed under the previous one (the parties' limits, the personal
// links, the webhook secrets and payloads, the sealed codes and links in
// pending jobs, the retired keys), gives the agents' seats the new key's
// room tokens, keeps the previous key of the addresses' hashes sealed
// (retired_keys) and the previous key's public receipt keys
// (receipt_keys), and last records the new key's fingerprint. It works in
// batches of batch rows, each its own transaction; a row changes only
// while it holds what was read, so it can run beside the service, be
// interrupted, and run again (then it changes nothing more). progress, if
// not nil, is told each batch's column and the rows changed so far.
func RotateSecretKey(ctx context.Context, pool *pgxpool.Pool, k SecretKeys, batch int, progress func(column string, changed int64)) (Rotation, error) {
	if k.PreviousLimits == nil || k.PreviousToken == nil || k.PreviousMemberInvites == nil || k.PreviousKeyCheck == nil {
		return Rotation{}, ErrNotRotating
	}
	if batch < 1 {
		batch = 500
	}
	limits, err := newSealKeys(k.Limits, k.PreviousLimits)
	if err != nil {
		return Rotation{}, fmt.Errorf("limits key: %w", err)
	}
	invites, err := newSealKeys(k.MemberInvites, k.PreviousMemberInvites)
	if err != nil {
		return Rotation{}, fmt.Errorf("member invitations key: %w", err)
	}
	id, err := selectInstallation(ctx, pool)
	if err != nil {
		return Rotation{}, err
	}
	var kept []byte
	if err := pool.QueryRow(ctx, `SELECT key_check FROM installation`).Scan(&kept); err != nil {
		return Rotation{}, fmt.Errorf("key check: %w", err)
	}
	check, previousCheck := keyCheck(k.KeyCheck, id), keyCheck(k.PreviousKeyCheck, id)
	if kept != nil && !hmac.Equal(kept, check) && !hmac.Equal(kept, previousCheck) {
		return Rotation{}, ErrKeyCheckThird
	}
	out := Rotation{Resealed: map[string]int64{}, Unopened: map[string]int64{}}

	// The previous key of the addresses' hashes first: the retired keys
	// are then sealed again with the rest.
	prevEmail := emailKeyOf(k.PreviousToken)
	if out.EmailKeyKept, err = insertRetiredKey(ctx, pool, emailHashPurpose, keyFingerprint(prevEmail), seal(limits, prevEmail, retiredKeyAD(emailHashPurpose))); err != nil {
		return out, err
	}
	for _, c := range sealedColumns {
		keys := limits
		if c.name == "river_job member_invite token" {
			keys = invites
		}
		var after sealedRow
		for {
			rows, err := selectSealedBatch(ctx, pool, c, after, batch)
			if err != nil {
				return out, err
			}
			if len(rows) == 0 {
				break
			}
			after = rows[len(rows)-1]
			var changed []sealedRow
			var values [][]byte
			for _, r := range rows {
				v, err := reseal(keys, r.value, sealedAD(c.name, r.k1, r.k2))
				switch {
				case err != nil:
					out.Unopened[c.name]++
				case v != nil:
					changed, values = append(changed, r), append(values, v)
				}
			}
			if len(changed) > 0 {
				n, err := updateSealed(ctx, pool, c, changed, values)
				if err != nil {
					return out, err
				}
				out.Resealed[c.name] += n
				if progress != nil {
					progress(c.name, out.Resealed[c.name])
				}
			}
			if len(rows) < batch {
				break
			}
		}
	}
	if out.RoomTokens, err = rekeyRoomTokens(ctx, pool, k.Token, k.PreviousToken, batch, progress); err != nil {
		return out, err
	}
	all, err := publishReceiptKeys(ctx, pool, k.PreviousReceipts)
	if err != nil {
		return out, err
	}
	out.ReceiptKeys = len(all)
	if ok, err := recordKeyCheck(ctx, pool, check, previousCheck); err != nil {
		return out, err
	} else if !ok {
		return out, ErrKeyCheckThird
	}
	return out, nil
}

// sealedAD is what a value of column is bound to (the AD it was sealed
// with), from its row's keys.
func sealedAD(column string, k1 int64, k2 string) []byte {
	switch column {
	case "parties.limits_enc":
		return []byte(fmt.Sprintf("limits\x00%d\x00%s", k1, k2))
	case "person_seats.link":
		return personLinkAD(k1)
	case "webhook_endpoints.secrets":
		return hookSecretsAD(k1)
	case "webhook_messages.payload_sealed":
		return hookPayloadAD(k1, k2)
	case "river_job notify_invite code":
		var room int64
		_, _ = fmt.Sscan(k2, &room)
		return inviteAD(room)
	case "river_job member_invite token":
		var inv int64
		_, _ = fmt.Sscan(k2, &inv)
		return memberInviteAD(inv)
	case "retired_keys.sealed":
		return retiredKeyAD(k2)
	}
	panic("app: no AD for " + column)
}

func retiredKeyAD(purpose string) []byte { return []byte("retired-key\x00" + purpose) }

// keyFingerprint names a retired key without showing it.
func keyFingerprint(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("taasky/retired-key-fingerprint"))
	return m.Sum(nil)
}

// rekeyRoomTokens gives each agent's seat whose room token is the previous
// key's the new key's (a seat's token is derived from the key and its
// salt, so whoever held the previous key and the salts could make it).
// The old token keeps finding the seat while SECRET_KEY_PREVIOUS is set
// (token_hash_prev, keyed with it); negotiation_list gives the new one.
func rekeyRoomTokens(ctx context.Context, pool *pgxpool.Pool, key, previous []byte, batch int, progress func(string, int64)) (int64, error) {
	var total int64
	var lastRoom int64
	lastSide := ""
	for {
		var n int
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			seats, err := selectAgentSeats(ctx, tx, lastRoom, lastSide, batch)
			if err != nil {
				return err
			}
			n = len(seats)
			if n == 0 {
				return nil
			}
			lastRoom, lastSide = seats[n-1].roomID, seats[n-1].side
			var rooms []int64
			var sides []string
			var old, new, prev [][]byte
			for _, s := range seats {
				h := secretHash(roomTokenUnder(key, s.roomID, s.side, s.salt))
				before := roomTokenUnder(previous, s.roomID, s.side, s.salt)
				if hmac.Equal(h, s.hash) || !hmac.Equal(secretHash(before), s.hash) {
					continue
				}
				rooms, sides = append(rooms, s.roomID), append(sides, s.side)
				old, new, prev = append(old, s.hash), append(new, h), append(prev, prevTokenHash(previous, before))
			}
			if len(rooms) == 0 {
				return nil
			}
			changed, err := updateSeatTokenHashes(ctx, tx, rooms, sides, old, new, prev)
			total += changed
			return err
		})
		if err != nil {
			return total, err
		}
		if progress != nil && n > 0 {
			progress("parties.token_hash", total)
		}
		if n < batch {
			return total, nil
		}
	}
}

// RetiredEmailKeys are the keys of the addresses' hashes under the
// SECRET_KEYs rotated before, which RotateSecretKey kept: processes find
// the hashes kept under them (RoomsConfig and TeamsConfig's
// RetiredEmailKeys). limits and previous are the limits keys (previous
// nil: none). Read once at start.
func RetiredEmailKeys(ctx context.Context, q querier, limits, previous []byte) ([][]byte, error) {
	keys, err := newSealKeys(limits, previous)
	if err != nil {
		return nil, fmt.Errorf("limits key: %w", err)
	}
	sealed, err := selectRetiredKeys(ctx, q, emailHashPurpose)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(sealed))
	for _, s := range sealed {
		k, err := unseal(keys, s, retiredKeyAD(emailHashPurpose))
		if err != nil {
			return nil, fmt.Errorf("a retired key of the addresses' hashes %w", err)
		}
		out = append(out, k)
	}
	return out, nil
}

// PublishReceiptKeys keeps the public keys of keyring (and previous, the
// keys of SECRET_KEY_PREVIOUS's during a rotation; nil: none) in the
// database, and publishes in keyring every one kept: a receipt signed
// before a rotation of SECRET_KEY still verifies once the key it was
// derived from is gone. Processes that sign receipts call it at start.
func PublishReceiptKeys(ctx context.Context, q querier, keyring, previous *receipt.Keyring) error {
	keys := keyring.Public()
	if previous != nil {
		keys = append(keys, previous.Public()...)
	}
	all, err := publishReceiptKeys(ctx, q, keys)
	if err != nil {
		return err
	}
	return keyring.Keep(append(all, keys[len(keyring.Public()):]...))
}
