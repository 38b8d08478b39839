package app

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestLinkAfterBackup: after a restore from a backup, a one-tap link the
// restored data does not hold (one mailed after the backup point, whose
// answer was lost with that time) says so, naming the backup's moment and
// how to answer again, instead of "never sent"; a link mailed before the
// backup point works as it did. Before any restore, the refusal is the
// usual one.
func TestLinkAfterBackup(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	token := rb.askB(t, `{}`, 10, "20").oneTap(t, rb)
	key := func(err error) string {
		var e *Error
		if !errors.As(err, &e) || ErrorCodeOf(err) != ErrNotFound {
			t.Fatalf("want a not-found refusal, got %v", err)
		}
		return e.Words.Key
	}
	lost := "ot_" + strings.Repeat("x", 43)
	_, err := rb.rooms.OneTapCard(rb.ctx, lost)
	if k := key(err); k == "restore20_link_after_backup" {
		t.Fatalf("before any restore: %v", err)
	}
	r, err := MovePastBackup(rb.ctx, rb.pool, time.Now(), true, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rb.rooms.OneTapCard(rb.ctx, lost)
	if k := key(err); k != "restore20_link_after_backup" || !strings.Contains(err.Error(), "sent after "+r.BackupPoint.UTC().Format("2006-01-02")) {
		t.Errorf("a link sent after the backup point, shown: %s %v", k, err)
	}
	_, err = rb.rooms.DecideOneTap(rb.ctx, lost, "sha256:00", true)
	if k := key(err); k != "restore20_link_after_backup" {
		t.Errorf("a link sent after the backup point, answered: %s %v", k, err)
	}
	if card, err := rb.rooms.OneTapCard(rb.ctx, token); err != nil || card.Confirmation == nil {
		t.Errorf("a link sent before the backup point: %v %+v", err, card)
	}
}

// TestSameDatabase: a database is another when its oid differs, or its
// cluster's system identifier where both are known (a role that may not
// read it records "-").
func TestSameDatabase(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"7716243105064614012/16384", "7716243105064614012/16384", true},
		{"7716243105064614012/16384", "7716243105064614012/21752", false}, // pg_restore into a new database
		{"7716243105064614012/16384", "7000000000000000001/16384", false}, // a new server, its first database
		{"-/16384", "7716243105064614012/16384", true},
		{"7716243105064614012/16384", "-/16384", true},
		{"-/16384", "-/21752", false},
	} {
		if got := sameDatabase(c.a, c.b); got != c.same {
			t.Errorf("sameDatabase(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
