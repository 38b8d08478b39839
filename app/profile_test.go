package app_test

import (
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestDeleteProfile: a member is refused, naming the account; once they
// left it, a wrong address is refused; their address (in any case) erases
// them: the row, their settings, and their name on the seats they once
// answered for; signing in again makes a new, empty profile; a second
// deletion finds nobody.
func TestDeleteProfile(t *testing.T) {
	tb, ann, _, mo, oz := lifeTeam(t)
	moAgentsRoom(t, tb, mo, oz)
	if err := tb.accounts.SetUserTimeZone(tb.ctx, mo.ID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	users := func() int {
		var n int
		if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := users()
	tb.refused("a member", app.ErrConflict, "profile: you are a member of alpha; leave it, or delete it, first",
		func() error { return tb.accounts.DeleteProfile(tb.ctx, mo.ID, mo.Email) })
	if err := tb.accounts.Leave(tb.ctx, mo.ID, "alpha"); err != nil {
		t.Fatal(err)
	}
	tb.refused("another address", app.ErrInvalid, "confirm: type your address, mo@example.test, to delete your profile",
		func() error { return tb.accounts.DeleteProfile(tb.ctx, mo.ID, ann.Email) })
	if users() != before {
		t.Fatal("a refusal erased someone")
	}
	if err := tb.accounts.DeleteProfile(tb.ctx, mo.ID, " "+strings.ToUpper(mo.Email)+" "); err != nil {
		t.Fatal(err)
	}
	if users() != before-1 {
		t.Fatalf("%d people left, want %d", users(), before-1)
	}
	var named int
	if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM parties WHERE owner_user_id = $1`, mo.ID).Scan(&named); err != nil || named != 0 {
		t.Fatalf("%d seats still name mo (%v)", named, err)
	}
	if _, err := tb.accounts.UserByID(tb.ctx, mo.ID); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Fatalf("mo after the deletion: %v", err)
	}
	again := tb.person(mo.Email, true)
	if again.ID == mo.ID || again.TimeZone != "UTC" {
		t.Fatalf("signed in again: %+v, want a new, empty profile", again)
	}
	if ms, err := tb.accounts.Memberships(tb.ctx, again.ID); err != nil || len(ms) != 0 {
		t.Fatalf("signed in again: memberships %v %v", ms, err)
	}
	if err := tb.accounts.DeleteProfile(tb.ctx, mo.ID, mo.Email); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Fatalf("deleted twice: %v", err)
	}
}
