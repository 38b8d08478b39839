package main

import (
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// TestRestoreHandsOutNoIDAgain restores, as docs/operations.md "Restoring
// from a backup" says, a dump of an installation that went on after it: a
// room agreed after the dump (its receipt handed out, then lost with the
// data) and a sign-out after it. On the restored database, started with
// serve, a new room must not take the lost room's id (two valid receipts
// of one room number for different terms), the session signed out after
// the dump must not be live again, and the request waiting at the dump is
// asked again. Without the move past the backup point, the new room was
// the lost room's id and the session worked.
func TestRestoreHandsOutNoIDAgain(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s not found (Debian: postgresql-client-15)", prog)
		}
	}
	ctx := t.Context()
	serveEnv := func(dsn string) env {
		return env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret, "LISTEN_ADDR": "127.0.0.1:0",
			"OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret", "SHUTDOWN_GRACE": "0"}
	}
	e := serveEnv(pgtest.NewDSN(t))
	srv, agent := acmeServer(t, e)
	peer := peerAgent(t, srv)
	p := start(t, e, "serve") // the installation runs on its database
	before, _ := agreeRoom(t, srv, agent, peer, "2026-12-24")
	// A request waiting at the dump, answered after it (an answer lost).
	asked := askedRoom(t, srv, agent, peer)
	token, _, err := srv.accounts.StartSession(ctx, agent.OwnerUserID, app.SessionDevice{Browser: "Firefox", Platform: "Linux"})
	if err != nil {
		t.Fatal(err)
	}
	// Its request mailed (the dump holds its job done: one still queued
	// would be left to go, not asked again).
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var waiting int
		if err := srv.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'notify_email'
			AND args->>'confirmation_id' = $1 AND state <> 'completed'`, asked).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the request's email was not sent within 10 s")
		}
	}
	dump := filepath.Join(t.TempDir(), "taasky.dump")
	if out, err := exec.Command("pg_dump", "-Fc", "-f", dump, e["DATABASE_URL"]).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	// After the dump: an agreement whose receipt its sides keep, and a
	// sign-out. Then the database is lost.
	lost, lostTerms := agreeRoom(t, srv, agent, peer, "2026-12-25")
	if err := srv.accounts.EndSession(ctx, token); err != nil {
		t.Fatal(err)
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	if lost.Room.ID != before.Room.ID+2 {
		t.Fatalf("rooms %d and %d: want the room asked between them", before.Room.ID, lost.Room.ID)
	}

	restored := pgtest.NewEmptyDSN(t)
	if out, err := exec.Command("pg_restore", "--no-owner", "-d", restored, dump).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	r := serveEnv(restored)
	p = start(t, r, "serve")
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.stderr.String(), "moved past its backup point") {
		t.Errorf("serve on the restored copy logged no move past the backup point:\n%s", p.stderr.String())
	}
	cfg, err := loadConfig(r.get, config.RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	rsrv, err := openServer(ctx, cfg, slog.New(slog.DiscardHandler), false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rsrv.close()
	var askedAgain int
	if err := rsrv.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'notify_email'
		AND args->>'confirmation_id' = $1 AND args ? 'again'`, asked).Scan(&askedAgain); err != nil || askedAgain != 1 {
		t.Errorf("the request waiting at the dump was queued again %d times (%v), want once", askedAgain, err)
	}
	if _, err := rsrv.accounts.SessionUser(ctx, token); err == nil {
		t.Error("a session signed out after the dump works again on the restored database")
	}
	again, terms := agreeRoom(t, rsrv, agent, peer, "2026-12-31")
	if again.Room.ID <= lost.Room.ID {
		t.Errorf("after the restore, room %d agreed on %s; the receipt handed out after the dump says room %d agreed on %s",
			again.Room.ID, terms, lost.Room.ID, lostTerms)
	}
	if again.Room.ID < lost.Room.ID+app.RestoreMinSkip {
		t.Errorf("room id %d after the restore: want a skip of at least %d past %d", again.Room.ID, app.RestoreMinSkip, lost.Room.ID)
	}

	// A second start on the same database moves nothing more.
	var next int64
	pool := rsrv.pool
	if err := pool.QueryRow(ctx, `SELECT last_value FROM rooms_id_seq`).Scan(&next); err != nil {
		t.Fatal(err)
	}
	p = start(t, r, "serve")
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	var now int64
	if err := pool.QueryRow(ctx, `SELECT last_value FROM rooms_id_seq`).Scan(&now); err != nil || now != next {
		t.Errorf("a second start on the restored database moved rooms' ids from %d to %d (%v)", next, now, err)
	}
}

// TestAfterRestore is `taasky after-restore`, for a backup restored in
// place (the database keeps its identity, so serve cannot tell): it skips
// the ids ahead and ends the sessions; with --backup-point in the past, it
// skips further, for every second since then; a wrong time changes nothing.
func TestAfterRestore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret}
	srv, agent := acmeServer(t, e)
	if _, _, err := srv.accounts.StartSession(ctx, agent.OwnerUserID, app.SessionDevice{}); err != nil {
		t.Fatal(err)
	}
	seq := func(pool *pgxpool.Pool) int64 {
		var v int64
		if err := pool.QueryRow(ctx, `SELECT coalesce(last_value, 0) FROM pg_sequences WHERE sequencename = 'agents_id_seq'`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	was := seq(srv.pool)
	if _, _, err := runCmd(t, e, "after-restore", "--backup-point", "yesterday"); err == nil || !strings.Contains(err.Error(), "--backup-point: want an RFC 3339 time") {
		t.Errorf("a wrong --backup-point: %v", err)
	}
	if seq(srv.pool) != was {
		t.Fatal("a refused after-restore moved the sequences")
	}
	out, _, err := runCmd(t, e, "after-restore")
	if err != nil || !strings.Contains(out, "1000000 ids ahead, 1 sessions ended, 0 pending confirmations asked again") {
		t.Fatalf("after-restore: %v %q", err, out)
	}
	if got := seq(srv.pool); got != was+app.RestoreMinSkip {
		t.Errorf("agents' ids at %d after after-restore, want %d", got, was+app.RestoreMinSkip)
	}
	was = seq(srv.pool)
	if out, _, err = runCmd(t, e, "after-restore", "--backup-point", "2000-01-01T00:00:00Z"); err != nil {
		t.Fatal(err)
	}
	if got := seq(srv.pool); got-was < 26*365*86400*app.RestoreIDsPerSecond {
		t.Errorf("after-restore from a backup of 2000 skipped %d ids (%s)", got-was, out)
	}
}

// askedRoom opens a room of agent's joined by peer, whose agent asks its
// human to approve; it returns the confirmation's id.
func askedRoom(t *testing.T, srv *server, agent, peer app.Agent) string {
	t.Helper()
	ctx := t.Context()
	schema := json.RawMessage(`{"day":{"type":"date","label":"Day"}}`)
	open, err := srv.rooms.Open(ctx, agent, app.OpenInput{Schema: schema, Subject: json.RawMessage(`{"day":"2026-12-26"}`), Title: "Asked"})
	if err != nil {
		t.Fatal(err)
	}
	join, err := srv.rooms.Join(ctx, peer, app.JoinInput{InviteCode: open.InviteCode, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := srv.rooms.RequestConfirmation(ctx, peer, join.RoomToken, negotiation.VerdictApprove, join.View.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// agreeRoom opens a room of agent's on the day, joined by peer, and has
// both humans agree it; it returns its receipt's facts and terms.
func agreeRoom(t *testing.T, srv *server, agent, peer app.Agent, day string) (*receipt.Receipt, string) {
	t.Helper()
	jws := agreedOn(t, srv, agent, peer, day)
	// The facts, unverified here (TestBackupRestore verifies): the room's id and terms.
	var facts receipt.Receipt
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(jws, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(payload, &facts); err != nil {
		t.Fatal(err)
	}
	return &facts, string(facts.Terms)
}

// TestAfterMove is `taasky after-move`, after a pg_upgrade (the cluster's
// system identifier changed, the database's oid and data kept): the
// database is recorded as the installation's, and a start then moves
// nothing (no session ended); without it the start took the upgrade for
// a restore.
func TestAfterMove(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret}
	srv, agent := acmeServer(t, e)
	if _, _, err := srv.accounts.StartSession(ctx, agent.OwnerUserID, app.SessionDevice{}); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, e, "after-move")
	if err != nil || !strings.Contains(out, "recorded as the installation's (was none)") {
		t.Fatalf("after-move on a first start: %v %q", err, out)
	}
	if _, err := srv.pool.Exec(ctx, `UPDATE installation SET database_identity = '1/' || split_part(database_identity, '/', 2)`); err != nil {
		t.Fatal(err)
	}
	if out, _, err = runCmd(t, e, "after-move"); err != nil || !strings.Contains(out, "(was 1/") {
		t.Fatalf("after-move after an upgrade: %v %q", err, out)
	}
	if out, _, err = runCmd(t, e, "after-move"); err != nil || !strings.Contains(out, "already the installation's") {
		t.Fatalf("after-move again: %v %q", err, out)
	}
	r, err := app.MovePastBackup(ctx, srv.pool, time.Now(), false, time.Time{}, nil)
	if err != nil || r.Skip != 0 || r.Sessions != 0 {
		t.Fatalf("the start after after-move: %+v %v, want nothing moved", r, err)
	}
}
