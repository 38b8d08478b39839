package app

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
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
	// SECRET_KEY_PREVIOUS, kept published (receipt.Keyring.Public), with
	// their MACs under ReceiptMAC ("receipt-keys").
	PreviousReceipts               []jose.JSONWebKey
	ReceiptMAC, PreviousReceiptMAC []byte
}

// Rotation is what RotateSecretKey did.
type Rotation struct {
	// Resealed counts the values sealed again under the new key, by
	// column (sealedColumns' names; "receipt_keys.mac": the kept public
	// receipt keys given the new key's MAC).
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
// jobs, finished ones too, the retired keys), gives the agents' seats the new key's
// room tokens, keeps the previous key of the addresses' hashes sealed
// (retired_keys) and the previous key's public receipt keys
// (receipt_keys), and last records the new key's fingerprint. It works in
// batches of batch rows, each its own transaction; a row changes only
// while it holds what was read, so it can run beside the service, be
// interrupted, and run again (then it changes nothing more). progress, if
// not nil, is told each batch's column and the rows changed so far.
func RotateSecretKey(ctx context.Context, pool *pgxpool.Pool, k SecretKeys, batch int, progress func(column string, changed int64)) (Rotation, error) {
	if k.PreviousLimits == nil || k.PreviousToken == nil || k.PreviousMemberInvites == nil || k.PreviousKeyCheck == nil || k.PreviousReceiptMAC == nil {
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
	kept, next, err := selectKeyCheck(ctx, pool)
	if err != nil {
		return Rotation{}, err
	}
	check, previousCheck := keyCheck(k.KeyCheck, id), keyCheck(k.PreviousKeyCheck, id)
	if kept != nil && !hmac.Equal(kept, check) && !hmac.Equal(kept, previousCheck) {
		return Rotation{}, ErrKeyCheckThird
	}
	if next != nil && !hmac.Equal(next, check) {
		// Sealing under another key than the running processes' would
		// leave them unable to open what it sealed.
		return Rotation{}, ErrRotationKeyMismatch
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
	remaced, all, err := remacReceiptKeys(ctx, pool, k.ReceiptMAC, k.PreviousReceiptMAC, k.PreviousReceipts)
	if err != nil {
		return out, err
	}
	if remaced > 0 {
		out.Resealed["receipt_keys.mac"] = remaced
	}
	out.ReceiptKeys = all
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
// (party_tokens_before, keyed with it); negotiation_list gives the new one.
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

// ReceiptKeys are what PublishReceiptKeys works with: the keyring of
// the process (SECRET_KEY's), the one of SECRET_KEY_PREVIOUS during a
// rotation (nil: none), and the keys that authenticate the kept public
// keys (config.Config.Key and PreviousKey of "receipt-keys"; nil previous:
// none).
type ReceiptKeys struct {
	Keyring, Previous *receipt.Keyring
	MAC, PreviousMAC  []byte
}

// PublishReceiptKeys keeps the public keys of the keyring (and of the
// previous one) in the database, each with its MAC, and publishes in the
// keyring every kept key whose MAC is this installation's (under MAC or
// PreviousMAC): a receipt signed before a rotation of SECRET_KEY still
// verifies once the key it was derived from is gone, and a key written
// into the database by another hand is refused, naming it. Processes that
// sign receipts call it at start.
func PublishReceiptKeys(ctx context.Context, q querier, k ReceiptKeys) error {
	keys := k.Keyring.Public()
	if k.Previous != nil {
		keys = append(keys, k.Previous.Public()...)
	}
	rows, err := receiptKeyRows(k.MAC, keys)
	if err != nil {
		return err
	}
	if err := insertReceiptKeys(ctx, q, rows); err != nil {
		return err
	}
	kept, err := selectReceiptKeys(ctx, q)
	if err != nil {
		return err
	}
	var out []jose.JSONWebKey
	for _, r := range kept {
		key, which, err := openReceiptKey(r, k.MAC, k.PreviousMAC)
		if err != nil {
			return err
		}
		if which < 0 {
			return fmt.Errorf("receipt_keys: the kept public key %q carries no MAC of this installation's SECRET_KEY or SECRET_KEY_PREVIOUS: it was written outside Taasky, or SECRET_KEY was replaced without SECRET_KEY_PREVIOUS and `taasky secret-key rotate`. Taasky does not start with it, so as never to publish a key it cannot vouch for: set SECRET_KEY_PREVIOUS to the key it was made under, or delete its row if it is not yours", r.kid)
		}
		out = append(out, key)
	}
	return k.Keyring.Keep(append(out, keys...))
}

// receiptKeyMAC authenticates a kept public receipt key.
func receiptKeyMAC(key []byte, kid string, public []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("taasky/receipt-key\x00" + kid + "\x00"))
	m.Write(public)
	return m.Sum(nil)
}

// receiptKeyRows are the rows of keys, with their MACs under key.
func receiptKeyRows(key []byte, keys []jose.JSONWebKey) ([]receiptKeyRow, error) {
	rows := make([]receiptKeyRow, len(keys))
	for i, k := range keys {
		pub, ok := k.Key.(ed25519.PublicKey)
		if !ok {
			return nil, fmt.Errorf("receipt keys: %q is not a public Ed25519 key", k.KeyID)
		}
		b, err := json.Marshal(k)
		if err != nil {
			return nil, fmt.Errorf("receipt keys: %w", err)
		}
		rows[i] = receiptKeyRow{kid: k.KeyID, jwk: b, mac: receiptKeyMAC(key, k.KeyID, pub)}
	}
	return rows, nil
}

// openReceiptKey reads a kept key, and which of macKeys its MAC is under
// (-1: none).
func openReceiptKey(r receiptKeyRow, macKeys ...[]byte) (jose.JSONWebKey, int, error) {
	var k jose.JSONWebKey
	if err := k.UnmarshalJSON(r.jwk); err != nil {
		return k, -1, fmt.Errorf("receipt_keys: the key %q: %w", r.kid, err)
	}
	pub, ok := k.Key.(ed25519.PublicKey)
	if !ok || k.KeyID != r.kid {
		return k, -1, fmt.Errorf("receipt_keys: the key %q is not a public Ed25519 key of that kid", r.kid)
	}
	for i, key := range macKeys {
		if key != nil && hmac.Equal(r.mac, receiptKeyMAC(key, r.kid, pub)) {
			return k, i, nil
		}
	}
	return k, -1, nil
}

// remacReceiptKeys keeps the previous key's public receipt keys with the
// new key's MAC, and gives the new key's MAC to each kept key whose MAC
// is the previous key's. It returns how many MACs it changed.
func remacReceiptKeys(ctx context.Context, q querier, mac, previousMAC []byte, previous []jose.JSONWebKey) (int64, int, error) {
	rows, err := receiptKeyRows(mac, previous)
	if err != nil {
		return 0, 0, err
	}
	if err := insertReceiptKeys(ctx, q, rows); err != nil {
		return 0, 0, err
	}
	kept, err := selectReceiptKeys(ctx, q)
	if err != nil {
		return 0, 0, err
	}
	var changed int64
	for _, r := range kept {
		key, which, err := openReceiptKey(r, mac, previousMAC)
		if err != nil {
			return changed, len(kept), err
		}
		if which != 1 {
			continue // the new key's already, or not this installation's (left)
		}
		n, err := updateReceiptKeyMAC(ctx, q, r.kid, r.mac, receiptKeyMAC(mac, r.kid, key.Key.(ed25519.PublicKey)))
		if err != nil {
			return changed, len(kept), err
		}
		changed += n
	}
	return changed, len(kept), nil
}
