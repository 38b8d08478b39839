package app

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
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
	r, err := MovePastBackup(rb.ctx, rb.pool, time.Now(), true, time.Time{}, nil)
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

// TestAskedAgainAfterRestore: a restore asks every pending confirmation
// again (its human may have answered after the backup point, an answer
// lost with it, and would otherwise hear nothing until the reminder a day
// before the deadline): a second request mail with a fresh one-tap link
// that answers it. A confirmation no longer pending is not asked.
func TestAskedAgainAfterRestore(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.withdrawAsked(t)
	first := nb.mailTo(t, "alpha@example.test", 1)
	done, dv := nb.withdrawAsked(t)
	nb.mailTo(t, "alpha@example.test", 2)
	if _, err := nb.rooms.DecideAsOwner(nb.ctx, nb.a.OwnerUserID, dv.RoomID, done.ID, "", false); err != nil {
		t.Fatal(err)
	}
	nb.settle(t) // the requests' jobs are done (one still running would be left to go)
	r, err := MovePastBackup(nb.ctx, nb.pool, time.Now(), true, time.Time{}, nb.svc)
	if err != nil || r.AskedAgain != 1 {
		t.Fatalf("restore: %+v %v, want 1 asked again", r, err)
	}
	again := nb.mailTo(t, "alpha@example.test", 3)
	m1, m2 := oneTapLink.FindStringSubmatch(first.Text), oneTapLink.FindStringSubmatch(again.Text)
	if again.Subject != first.Subject || m2 == nil || m1 == nil || m1[1] == m2[1] {
		t.Fatalf("asked again: %q (first %q), links %v %v", again.Subject, first.Subject, m1, m2)
	}
	if d, err := nb.rooms.DecideOneTap(nb.ctx, m2[1], "", true); err != nil || d.Result != negotiation.ResultApplied {
		t.Fatalf("the new link: %+v %v", d, err)
	}
	nb.settle(t)
	asks := 0
	for _, m := range nb.smtp.Mails() {
		if p, err := notify.Parse(m.Data); err == nil && p.Subject == first.Subject {
			asks++
		}
	}
	if asks != 3 {
		t.Errorf("%d requests mailed, want 3: two, and the pending one again", asks)
	}
}

// TestNotAskedAgainWhileQueued: a pending confirmation whose request's
// email is still queued at the restore (no worker ran: it was queued or
// being retried at the backup point, and goes anyway) is not asked twice.
func TestNotAskedAgainWhileQueued(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t) // its River client inserts; nothing works the jobs
	rb.askB(t, `{}`, 10, "20")
	n, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: rb.rooms.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	r, err := MovePastBackup(rb.ctx, rb.pool, time.Now(), true, time.Time{}, n)
	if err != nil || r.AskedAgain != 0 {
		t.Fatalf("restore: %+v %v, want none asked again", r, err)
	}
}

// TestKeepDatabaseAfterUpgrade: a pg_upgrade to a new major version keeps
// the database's oid and every row, but gives the cluster a new system
// identifier (measured: pg_upgrade of PostgreSQL 15, 7716260048252184859
// to 7716260120649615990, oid 16384 kept), as a restored dump on a new
// server has. Without a way to say so, the first start after it moved
// past a "backup point" (every session ended, every pending confirmation
// asked again, one-tap links refused as lost for 30 days). KeepDatabase
// (`taasky after-move`) records the database, and the start then moves
// nothing; a real copy after that is still found.
func TestKeepDatabaseAfterUpgrade(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	if r, err := MovePastBackup(rb.ctx, rb.pool, time.Now(), false, time.Time{}, nil); err != nil || r.Skip != 0 {
		t.Fatalf("first start: %+v %v", r, err)
	}
	upgraded := func() {
		// What pg_upgrade leaves: another system identifier, the same oid.
		if _, err := rb.pool.Exec(rb.ctx, `UPDATE installation SET database_identity = '1/' || split_part(database_identity, '/', 2)`); err != nil {
			t.Fatal(err)
		}
	}
	upgraded()
	k, err := KeepDatabase(rb.ctx, rb.pool)
	if err != nil || k.Skip != 0 || k.Was == k.Identity || !strings.HasPrefix(k.Was, "1/") {
		t.Fatalf("KeepDatabase: %+v %v", k, err)
	}
	if r, err := MovePastBackup(rb.ctx, rb.pool, time.Now(), false, time.Time{}, nil); err != nil || r.Skip != 0 || r.Sessions != 0 {
		t.Fatalf("the start after an upgrade said so: %+v %v; want nothing moved", r, err)
	}
	if k, err := KeepDatabase(rb.ctx, rb.pool); err != nil || k.Was != k.Identity {
		t.Fatalf("KeepDatabase again: %+v %v", k, err)
	}
	upgraded() // not said: taken for a copy, as before
	if r, err := MovePastBackup(rb.ctx, rb.pool, time.Now(), false, time.Time{}, nil); err != nil || r.Skip == 0 {
		t.Fatalf("a copy not said to be kept: %+v %v; want a move past its backup point", r, err)
	}
}
