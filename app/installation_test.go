package app

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestCheckSecretKey: the first process records its key's fingerprint; the
// same key passes again, another is refused with ErrSecretKeyMismatch (one
// line naming SECRET_KEY) and changes nothing; what is kept is neither the
// key nor its plain hash, and depends on the installation id.
func TestCheckSecretKey(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool := pgtest.New(t)
	keyA, keyB := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)

	// Processes starting at once with the same key: one records, all pass.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = CheckSecretKey(ctx, pool, keyA, nil) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("the same key at once: %v", err)
	}
	err := CheckSecretKey(ctx, pool, keyB, nil)
	if !errors.Is(err, ErrSecretKeyMismatch) {
		t.Fatalf("another key: %v, want ErrSecretKeyMismatch", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "SECRET_KEY") || strings.Contains(msg, "\n") || !strings.Contains(msg, "same SECRET_KEY") {
		t.Errorf("the refusal is not one line naming SECRET_KEY and what to do: %q", msg)
	}
	if err := CheckSecretKey(ctx, pool, keyA, nil); err != nil {
		t.Fatalf("the first key after another was refused: %v", err)
	}

	var id string
	var kept []byte
	if err := pool.QueryRow(ctx, `SELECT id::text, key_check FROM installation`).Scan(&id, &kept); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kept, keyCheck(keyA, id)) {
		t.Error("the kept fingerprint is not the first key's")
	}
	if bytes.Contains(kept, keyA) || bytes.Equal(kept, secretHash(string(keyA))) {
		t.Error("the database keeps the key or its plain hash")
	}
	if bytes.Equal(keyCheck(keyA, id), keyCheck(keyA, "00000000-0000-0000-0000-000000000000")) {
		t.Error("the fingerprint does not depend on the installation id")
	}

	// A rotation to B: B with A as the previous key passes, and records
	// nothing (a process of A alone still passes until the rotation's
	// command records B's); a third key with A previous is refused.
	if err := CheckSecretKey(ctx, pool, keyB, keyA); err != nil {
		t.Fatalf("the new key with the recorded one as previous: %v", err)
	}
	if err := CheckSecretKey(ctx, pool, keyA, nil); err != nil {
		t.Fatalf("the recorded key during a rotation: %v", err)
	}
	keyC := bytes.Repeat([]byte{3}, 32)
	if err := CheckSecretKey(ctx, pool, keyC, keyB); !errors.Is(err, ErrSecretKeyMismatch) {
		t.Fatalf("a third key with an unrecorded previous one: %v, want ErrSecretKeyMismatch", err)
	}
	if ok, err := recordKeyCheck(ctx, pool, keyCheck(keyB, id), keyCheck(keyA, id)); err != nil || !ok {
		t.Fatalf("record B's fingerprint: %v %v", ok, err)
	}
	if err := CheckSecretKey(ctx, pool, keyA, nil); !errors.Is(err, ErrSecretKeyMismatch) {
		t.Fatalf("the old key alone once B is recorded: %v, want ErrSecretKeyMismatch", err)
	}
	for _, prev := range [][]byte{keyA, nil} {
		if err := CheckSecretKey(ctx, pool, keyB, prev); err != nil {
			t.Fatalf("the new key once recorded (previous %v): %v", prev != nil, err)
		}
	}
}

// TestKeepReceiptKeyVersion: processes starting at once with one version
// all start and record it; a lower version is then refused in one line
// naming RECEIPT_KEY_VERSION and changes nothing; the same or a higher one
// starts, and the higher one is kept.
func TestKeepReceiptKeyVersion(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool := pgtest.New(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := KeepReceiptKeyVersion(ctx, pool, 2); err != nil {
				t.Errorf("version 2 at once: %v", err)
			}
		})
	}
	wg.Wait()
	err := KeepReceiptKeyVersion(ctx, pool, 1)
	if err == nil || !strings.HasPrefix(err.Error(), "RECEIPT_KEY_VERSION is 1, below 2") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("version 1 after 2: %v, want one line naming RECEIPT_KEY_VERSION", err)
	}
	var kept int
	if err := pool.QueryRow(ctx, `SELECT receipt_key_version FROM installation`).Scan(&kept); err != nil || kept != 2 {
		t.Fatalf("kept %d (%v), want 2", kept, err)
	}
	for _, v := range []int{2, 3, 3} {
		if err := KeepReceiptKeyVersion(ctx, pool, v); err != nil {
			t.Errorf("version %d: %v", v, err)
		}
	}
	if err := KeepReceiptKeyVersion(ctx, pool, 2); err == nil {
		t.Error("version 2 after 3 started")
	}
}

// TestOneNewKeyPerRotation: during a rotation (A recorded), the first
// process with a new key and A as the previous one fixes the rotation's
// new key; another new key with A previous is refused (it would seal
// limits that neither the rotation's command nor, once A is removed, any
// process opens), naming SECRET_KEY; the rotation's command with another
// new key is refused too and records nothing; the one it fixed finishes,
// and the next rotation may take any new key.
func TestOneNewKeyPerRotation(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool := pgtest.New(t)
	keyA, keyB, keyC := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	if err := CheckSecretKey(ctx, pool, keyA, nil); err != nil {
		t.Fatal(err)
	}
	if err := CheckSecretKey(ctx, pool, keyB, keyA); err != nil {
		t.Fatalf("the rotation's new key: %v", err)
	}
	err := CheckSecretKey(ctx, pool, keyC, keyA)
	if !errors.Is(err, ErrSecretKeyMismatch) {
		t.Fatalf("a second new key during the rotation: %v, want ErrSecretKeyMismatch", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "SECRET_KEY") || strings.Contains(msg, "\n") {
		t.Errorf("the refusal is not one line naming SECRET_KEY: %q", msg)
	}
	if err := CheckSecretKey(ctx, pool, keyB, keyA); err != nil {
		t.Fatalf("another process of the rotation: %v", err)
	}
	if err := CheckSecretKey(ctx, pool, keyA, nil); err != nil {
		t.Fatalf("a process of the old key alone during the rotation: %v", err)
	}
	// SECRET_KEY_PREVIOUS removed before the command finished.
	if err := CheckSecretKey(ctx, pool, keyB, nil); !errors.Is(err, ErrSecretKeyMismatch) || !strings.Contains(err.Error(), "not finished") ||
		!strings.Contains(err.Error(), "SECRET_KEY_PREVIOUS") {
		t.Fatalf("the new key alone before the command finished: %v, want a refusal saying the rotation is not finished", err)
	}
	id, err := selectInstallation(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	c := SecretKeys{Limits: keyC, PreviousLimits: keyA, Token: keyC, PreviousToken: keyA, MemberInvites: keyC, PreviousMemberInvites: keyA,
		KeyCheck: keyC, PreviousKeyCheck: keyA, ReceiptMAC: keyC, PreviousReceiptMAC: keyA}
	if r, err := RotateSecretKey(ctx, pool, c, 10, nil); !errors.Is(err, ErrRotationKeyMismatch) || r.EmailKeyKept {
		t.Fatalf("the rotation's command with another new key: %v (did %+v), want ErrRotationKeyMismatch before anything", err, r)
	}
	if ok, err := recordKeyCheck(ctx, pool, keyCheck(keyC, id), keyCheck(keyA, id)); err != nil || ok {
		t.Fatalf("the command with another new key recorded it (%v, %v)", ok, err)
	}
	if ok, err := recordKeyCheck(ctx, pool, keyCheck(keyB, id), keyCheck(keyA, id)); err != nil || !ok {
		t.Fatalf("the command with the rotation's new key: %v %v", ok, err)
	}
	if err := CheckSecretKey(ctx, pool, keyC, keyB); err != nil {
		t.Fatalf("the next rotation's new key: %v", err)
	}
}

// TestClockOffsetAtStart: the statement a serving process already runs at
// start (KeepReceiptKeyVersion's) measures how far the process's clock is
// off the database's, ahead or behind.
func TestClockOffsetAtStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	for _, off := range []time.Duration{30 * time.Second, -30 * time.Second, 0} {
		got, err := KeepReceiptKeyVersionClock(ctx, pool, 1, func() time.Time { return time.Now().Add(off) })
		if err != nil {
			t.Fatal(err)
		}
		// The statement's round trip blurs it by half of its time, at most.
		if d := got - off; d.Abs() > 10*time.Second {
			t.Errorf("a process %s off the database's measured %s off", off, got)
		}
	}
}
