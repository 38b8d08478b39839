package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
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

// ErrSecretKeyMismatch is CheckSecretKey's refusal: this process's
// SECRET_KEY is not the one the installation's other processes use.
var ErrSecretKeyMismatch = errors.New("SECRET_KEY differs from the key this database's other Taasky processes use " +
	"(its fingerprint, recorded by the first process to start or by `taasky secret-key rotate`, does not match): start this process with the same SECRET_KEY as the others; " +
	"to rotate SECRET_KEY, set the new key as SECRET_KEY and the old one as SECRET_KEY_PREVIOUS, see \"Rotating SECRET_KEY\" in docs/operations.md")

// CheckSecretKey refuses a process whose SECRET_KEY is not the
// installation's: what one process seals (limits, invitation codes,
// personal links, webhook secrets) another with a different key cannot
// open, and its jobs would fail one by one. key is derived from SECRET_KEY
// for this check only (config.Key("key-check")); the database keeps an
// HMAC-SHA256 under it of a fixed label and the installation id, never the
// key nor a plain hash of it. The first process to start records it.
//
// During a rotation of SECRET_KEY, previous is the key-check key of
// SECRET_KEY_PREVIOUS (nil: none): the installation's fingerprint may be
// either key's (the old one's until `taasky secret-key rotate` records the
// new one's, RecordSecretKey).
func CheckSecretKey(ctx context.Context, q querier, key, previous []byte) error {
	id, err := selectInstallation(ctx, q)
	if err != nil {
		return err
	}
	mine := keyCheck(key, id)
	kept, next, err := keepKeyCheck(ctx, q, mine)
	if err != nil {
		return err
	}
	if hmac.Equal(kept, mine) {
		return nil
	}
	if previous == nil && hmac.Equal(next, mine) {
		return ErrRotationUnfinished
	}
	if previous == nil || !hmac.Equal(kept, keyCheck(previous, id)) {
		return ErrSecretKeyMismatch
	}
	// A rotation not yet recorded: its new key is the first process's.
	next, err = keepKeyCheckNext(ctx, q, mine)
	if err != nil {
		return err
	}
	if !hmac.Equal(next, mine) {
		return ErrRotationKeyMismatch
	}
	return nil
}

// ErrRotationUnfinished is CheckSecretKey's refusal of a process with the
// new key of a rotation alone before `taasky secret-key rotate` finished
// (SECRET_KEY_PREVIOUS removed too early): what the database keeps under
// the old key would not open. It is an ErrSecretKeyMismatch.
var ErrRotationUnfinished error = mismatch("the rotation to this SECRET_KEY is not finished (`taasky secret-key rotate` has not recorded it): " +
	"what the database keeps under the old key would not open; set SECRET_KEY_PREVIOUS to the old key again, and remove it only once the command says Done")

// ErrRotationKeyMismatch is CheckSecretKey's refusal during a rotation:
// this process's SECRET_KEY is not the new key the rotation's first
// process started with. It is an ErrSecretKeyMismatch.
var ErrRotationKeyMismatch error = mismatch("SECRET_KEY differs from the new key this rotation's other processes started with (SECRET_KEY_PREVIOUS is the recorded key, " +
	"and every process of a rotation must have the same new SECRET_KEY: what one with another seals no other opens): " +
	"start this process, or `taasky secret-key rotate`, with the same SECRET_KEY as the others")

// mismatch is a refusal of CheckSecretKey's in its own words, which is an
// ErrSecretKeyMismatch.
type mismatch string

func (m mismatch) Error() string { return string(m) }

func (mismatch) Is(target error) bool { return target == ErrSecretKeyMismatch }

// keyCheck is the fingerprint of key for the installation id.
func keyCheck(key []byte, installationID string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("taasky/secret-key-check\x00" + installationID))
	return m.Sum(nil)
}

// KeepReceiptKeyVersion refuses a process whose RECEIPT_KEY_VERSION is
// below the highest one a process of this database started with (which
// may have signed receipts: its key must stay published, or they would no
// longer verify), and otherwise records version as that highest one when
// it is higher. Processes that sign receipts (serve, dev) call it before
// they can sign. The check reads one row; a move reads nothing of it.
func KeepReceiptKeyVersion(ctx context.Context, q querier, version int) error {
	_, err := KeepReceiptKeyVersionClock(ctx, q, version, time.Now)
	return err
}

// KeepReceiptKeyVersionClock is KeepReceiptKeyVersion that also returns
// how far the process's clock (now) is ahead of the database's (negative:
// behind), measured by the same statement: the database's moment when it
// began against the middle of the process's moments before and after it.
// A room's deadlines and cool-downs follow the database's clock whatever
// the process's says (Rooms.clock); what still reads the process's clock
// (the rate limits, sessions, OAuth, the jobs' schedules) is off by this
// much (docs/operations.md "Clocks").
func KeepReceiptKeyVersionClock(ctx context.Context, q querier, version int, now func() time.Time) (time.Duration, error) {
	before := now()
	kept, at, err := raiseReceiptKeyVersion(ctx, q, version)
	if err != nil {
		return 0, err
	}
	after := now()
	offset := before.Add(after.Sub(before) / 2).Sub(at)
	if kept > version {
		return 0, fmt.Errorf("RECEIPT_KEY_VERSION is %d, below %d, which this database's processes already sign receipts with: "+
			"a receipt key is never retired (the receipts it signed would no longer verify); set RECEIPT_KEY_VERSION to %d or more, see docs/operations.md",
			version, kept, kept)
	}
	return offset, nil
}
