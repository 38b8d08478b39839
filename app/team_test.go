package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// teamBundle is accounts with teams on, rooms, a clock the test moves,
// and people signed in through OIDC (verified unless said otherwise).
type teamBundle struct {
	t        *testing.T
	ctx      context.Context
	pool     *pgxpool.Pool
	accounts *app.Accounts
	rooms    *app.Rooms
	clock    *atomic.Int64
}

func setupTeams(t *testing.T, signupCap, inviteCap int) *teamBundle {
	t.Helper()
	t.Parallel()
	pool := pgtest.New(t)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	clock := &atomic.Int64{}
	clock.Store(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	accounts := app.NewAccounts(pool)
	if err := accounts.UseTeams(app.TeamsConfig{River: rc, SealKey: bytes.Repeat([]byte{4}, 32), BaseURL: "https://taasky.example",
		SignupDailyCap: signupCap, InviteDailyCap: inviteCap, Now: now, RoomTokenKey: bytes.Repeat([]byte{9}, 32)}); err != nil {
		t.Fatal(err)
	}
	rooms, err := app.NewRooms(app.RoomsConfig{Pool: pool, River: rc, LimitsKey: bytes.Repeat([]byte{7}, 32),
		TokenKey: bytes.Repeat([]byte{9}, 32), BaseURL: "https://taasky.example", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close) // before the pool closes: the last changes are announced
	return &teamBundle{t: t, ctx: t.Context(), pool: pool, accounts: accounts, rooms: rooms, clock: clock}
}

func (tb *teamBundle) advance(d time.Duration) { tb.clock.Add(int64(d)) }

// person signs a person in (creating their user).
func (tb *teamBundle) person(email string, verified bool) app.User {
	tb.t.Helper()
	u, err := tb.accounts.LoginOIDC(tb.ctx, app.OIDCIdentity{Issuer: "https://id.example", Subject: "sub-" + email, Email: email, EmailVerified: true})
	if err != nil {
		tb.t.Fatal(err)
	}
	if !verified { // the issuer took its word back at a later sign-in
		if u, err = tb.accounts.LoginOIDC(tb.ctx, app.OIDCIdentity{Issuer: "https://id.example", Subject: "sub-" + email, Email: email}); err != nil {
			tb.t.Fatal(err)
		}
	}
	return u
}

// counts is the rows of what teams write, to show a refusal wrote nothing.
func (tb *teamBundle) counts() map[string]int {
	tb.t.Helper()
	out := map[string]int{}
	for _, table := range []string{"accounts", "memberships", "account_invitations", "member_invite_emails", "audit_log",
		"river_job", "agent_keys", "room_notes"} {
		var n int
		if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			tb.t.Fatal(err)
		}
		out[table] = n
	}
	var revoked, sessions int
	if err := tb.pool.QueryRow(tb.ctx, `SELECT (SELECT count(*) FROM agent_keys WHERE revoked_at IS NOT NULL),
		(SELECT count(*) FROM user_sessions)`).Scan(&revoked, &sessions); err != nil {
		tb.t.Fatal(err)
	}
	out["revoked keys"], out["sessions"] = revoked, sessions
	return out
}

// refused checks that do fails with code and msg (whole) and changes nothing.
func (tb *teamBundle) refused(what string, code app.ErrorCode, msg string, do func() error) {
	tb.t.Helper()
	before := tb.counts()
	err := do()
	if app.ErrorCodeOf(err) != code || app.ErrorMessageOf(err) != msg {
		tb.t.Fatalf("%s: %v (%s)\nwant %s (%s)", what, err, app.ErrorCodeOf(err), msg, code)
	}
	after := tb.counts()
	for k, v := range before {
		if after[k] != v {
			tb.t.Fatalf("%s: refused, but %s went from %d to %d", what, k, v, after[k])
		}
	}
}

// lastInviteLink reads the newest invitation job and renders its mail as
// the worker would: the link is the one the mail holds.
func (tb *teamBundle) lastInviteLink() (string, string) {
	tb.t.Helper()
	var raw []byte
	if err := tb.pool.QueryRow(tb.ctx, `SELECT args FROM river_job WHERE kind = 'member_invite' ORDER BY id DESC LIMIT 1`).Scan(&raw); err != nil {
		tb.t.Fatal(err)
	}
	var args jobs.MemberInviteArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		tb.t.Fatal(err)
	}
	m, err := tb.accounts.MemberInviteMail(tb.ctx, args)
	if err != nil {
		tb.t.Fatalf("the invitation's mail: %v", err)
	}
	token, ok := strings.CutPrefix(m.URL, "https://taasky.example/join/")
	if !ok || m.To != args.To {
		tb.t.Fatalf("the mail's link %q to %q", m.URL, m.To)
	}
	return token, m.To
}

func TestSuggestSlug(t *testing.T) {
	for name, want := range map[string]string{"Alpha Studio": "alpha-studio", "  Café  Crème!! ": "cafe-creme", "Ünïcode & Co.": "unicode-co",
		"東京": "", "a": "a", strings.Repeat("ab ", 30): "ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-a"} {
		if got := app.SuggestSlug(name); got != want {
			t.Errorf("SuggestSlug(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestSignUp: a verified person creates accounts they own, up to the
// daily cap; every bad input is one line naming the field and the rule,
// and changes nothing.
func TestSignUp(t *testing.T) {
	tb := setupTeams(t, 2, 0)
	ann := tb.person("ann@example.test", true)
	acct, err := tb.accounts.SignUp(tb.ctx, ann.ID, " Alpha Studio ", "alpha-studio")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := tb.accounts.Membership(tb.ctx, ann.ID, "alpha-studio"); err != nil || m.Role != app.MemberRoleOwner || acct.Name != "Alpha Studio" {
		t.Fatalf("the new account's owner: %+v %v", m, err)
	}
	// The sign-up is kept as a keyed hash of the address, not its plain
	// SHA-256, which anyone holding the database could test addresses
	// against.
	var signups, plain int
	if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*), count(*) FILTER (WHERE email_hash = sha256(convert_to('ann@example.test', 'UTF8')))
		FROM signups`).Scan(&signups, &plain); err != nil || signups != 1 || plain != 0 {
		t.Fatalf("signups: %d, %d of them a plain SHA-256 of the address (%v); want 1, 0", signups, plain, err)
	}
	// The same form sent again (a double click) is answered with the
	// account it made, and counts once against the cap (see below).
	if again, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha Studio", "alpha-studio"); err != nil || again.ID != acct.ID {
		t.Fatalf("the same sign-up again: %+v %v, want account %d", again, err, acct.ID)
	}
	tb.refused("a slug taken", app.ErrConflict, `address: "alpha-studio" is taken by another account; choose another`,
		func() error { _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Other", "alpha-studio"); return err })
	for _, word := range []string{"admin", "api", "mcp", "login", "static", "well-known"} {
		tb.refused("reserved "+word, app.ErrInvalid, `address: "`+word+`" is a word Taasky keeps for itself; choose another`,
			func() error { _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Other", word); return err })
	}
	tb.refused("a bad slug", app.ErrInvalid, `address: must be 3–40 characters of a–z, 0–9 and '-', starting and ending with a letter or digit (got ".well-known")`,
		func() error { _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Other", ".well-known"); return err })
	tb.refused("no name", app.ErrInvalid, "name: must be 1–80 characters, without control characters (got 0)",
		func() error { _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "  ", "other"); return err })
	// A bad name and a bad address: both said at once, each at its field.
	tb.refused("no name and a bad address", app.ErrInvalid, "name: must be 1–80 characters, without control characters (got 0)",
		func() error {
			_, err := tb.accounts.SignUp(tb.ctx, ann.ID, "", "A_b")
			e, ok := errors.AsType[*app.Error](err)
			if !ok || len(e.Faults) != 2 || e.Faults[0].Field != "name" || e.Faults[1].Field != "slug" ||
				e.Faults[1].Message != `address: must be 3–40 characters of a–z, 0–9 and '-', starting and ending with a letter or digit (got "A_b")` {
				t.Errorf("no name and a bad address: faults %+v", e)
			}
			return err
		})
	tb.refused("a long name", app.ErrInvalid, "name: must be 1–80 characters, without control characters (got 81)",
		func() error {
			_, err := tb.accounts.SignUp(tb.ctx, ann.ID, strings.Repeat("n", 81), "other")
			return err
		})

	ned := tb.person("ned@example.test", false)
	tb.refused("an unverified email", app.ErrUnauthorized, "email: your identity provider has not verified ned@example.test; only a verified address may own an account",
		func() error { _, err := tb.accounts.SignUp(tb.ctx, ned.ID, "Ned's", "neds"); return err })

	tb.advance(time.Hour)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Second", "second"); err != nil {
		t.Fatal(err)
	}
	tb.refused("past the daily cap", app.ErrConflict, "you have created 2 accounts in the last 24 hours, the most allowed; try again from 2026-11-03T09:00:00Z",
		func() error { _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Third", "third"); return err })
	tb.advance(23 * time.Hour)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Third", "third"); err != nil {
		t.Fatalf("a day after the first: %v", err)
	}
	// Deleting the accounts erases their audit logs, not the count.
	for _, slug := range []string{"second", "third"} {
		if _, err := tb.rooms.DeleteAccountNow(tb.ctx, ann.ID, slug, slug); err != nil {
			t.Fatal(err)
		}
	}
	tb.refused("past the cap, the accounts deleted", app.ErrConflict, "you have created 2 accounts in the last 24 hours, the most allowed; try again from 2026-11-03T10:00:00Z",
		func() error { _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Fourth", "fourth"); return err })
}

// TestInvitations: owners and admins invite; the link works once, for
// the invited verified address, for 7 days; a wrong address is refused
// and leaves it usable; re-sending replaces the link; revoked, used and
// expired links each say which; a link that never was is not found.
func TestInvitations(t *testing.T) {
	tb := setupTeams(t, 0, 3)
	ann := tb.person("ann@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	bob := tb.person("bob@example.test", true)

	if _, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "Bob@Example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	token, to := tb.lastInviteLink()
	if to != "bob@example.test" {
		t.Fatalf("mailed to %s", to)
	}
	inv, err := tb.accounts.InvitationByToken(tb.ctx, token)
	if err != nil || inv.AccountName != "Alpha" || inv.InvitedBy != "ann@example.test" || inv.Role != app.MemberRoleMember ||
		!inv.ExpiresAt.Equal(inv.SentAt.Add(7*24*time.Hour)) {
		t.Fatalf("the invitation: %+v %v", inv, err)
	}

	// Refusals of the inviter.
	tb.refused("a second pending invitation", app.ErrConflict, "email: bob@example.test already has a pending invitation; resend it from the list of invitations",
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "bob@example.test", app.MemberRoleAdmin)
			return err
		})
	tb.refused("inviting a member", app.ErrConflict, "email: ann@example.test is already a member of alpha",
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "ann@example.test", app.MemberRoleMember)
			return err
		})
	tb.refused("an unknown role", app.ErrInvalid, `role: must be owner, admin or member (got "boss")`,
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "kim@example.test", "boss")
			return err
		})
	tb.refused("a bad address", app.ErrInvalid, `email: must be an email address like name@example.com (got "kim")`,
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "kim", app.MemberRoleMember)
			return err
		})
	tb.refused("a stranger invites", app.ErrNotFound, `account: you are not a member of "alpha"`,
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, bob.ID, "alpha", "kim@example.test", app.MemberRoleMember)
			return err
		})

	// Refusals of the invitee: the link stays usable.
	cat := tb.person("cat@example.test", true)
	tb.refused("another address", app.ErrUnauthorized,
		"email: this invitation is for another address than cat@example.test; sign out and sign in with the address it was sent to",
		func() error { _, err := tb.accounts.AcceptInvitation(tb.ctx, cat.ID, token); return err })
	tb.refused("a link that never was", app.ErrNotFound, "invitation: this link is not valid",
		func() error {
			_, err := tb.accounts.AcceptInvitation(tb.ctx, bob.ID, "tj_"+strings.Repeat("A", 43))
			return err
		})
	tb.refused("a malformed link", app.ErrNotFound, "invitation: this link is not valid",
		func() error { _, err := tb.accounts.InvitationByToken(tb.ctx, "nothing"); return err })
	m, err := tb.accounts.AcceptInvitation(tb.ctx, bob.ID, token)
	if err != nil || m.Role != app.MemberRoleMember || m.AccountSlug != "alpha" {
		t.Fatalf("bob joins: %+v %v", m, err)
	}
	tb.refused("a used link", app.ErrConflict, "invitation: this link was already used to join Alpha",
		func() error { _, err := tb.accounts.AcceptInvitation(tb.ctx, bob.ID, token); return err })

	// A member may not invite; an admin invites members only.
	tb.refused("a member invites", app.ErrUnauthorized, "invitation: only the account's owners and admins invite",
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, bob.ID, "alpha", "kim@example.test", app.MemberRoleMember)
			return err
		})
	if err := tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", bob.ID, app.MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	tb.refused("an admin invites an owner", app.ErrUnauthorized, "role: only the account's owners invite an owner or admin",
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, bob.ID, "alpha", "kim@example.test", app.MemberRoleOwner)
			return err
		})

	// Resend replaces the link; revoke ends it; the cap counts every mail.
	kimInv, err := tb.accounts.Invite(tb.ctx, bob.ID, "alpha", "kim@example.test", app.MemberRoleMember)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := tb.lastInviteLink()
	tb.advance(time.Hour)
	if err := tb.accounts.ResendInvitation(tb.ctx, ann.ID, "alpha", kimInv.ID); err != nil {
		t.Fatal(err)
	}
	second, _ := tb.lastInviteLink()
	if first == second {
		t.Fatal("a resend kept the link")
	}
	kim := tb.person("kim@example.test", false)
	tb.refused("the replaced link", app.ErrNotFound, "invitation: this link is not valid",
		func() error { _, err := tb.accounts.AcceptInvitation(tb.ctx, kim.ID, first); return err })
	tb.refused("an unverified invitee", app.ErrUnauthorized, "email: your identity provider has not verified kim@example.test; only a verified address may join an account",
		func() error { _, err := tb.accounts.AcceptInvitation(tb.ctx, kim.ID, second); return err })
	tb.refused("past the cap", app.ErrConflict,
		"email: this account has sent 3 invitations in the last 24 hours, the most allowed; nothing was sent. Try again from 2026-11-03T09:00:00Z",
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "lee@example.test", app.MemberRoleMember)
			return err
		})
	if err := tb.accounts.RevokeInvitation(tb.ctx, bob.ID, "alpha", kimInv.ID); err != nil {
		t.Fatal(err)
	}
	kim = tb.person("kim@example.test", true)
	tb.refused("a revoked link", app.ErrConflict, "invitation: this link was revoked by the account; ask its owners for a new one",
		func() error { _, err := tb.accounts.AcceptInvitation(tb.ctx, kim.ID, second); return err })
	tb.refused("resending a revoked one", app.ErrConflict, "invitation: it was revoked already",
		func() error { return tb.accounts.ResendInvitation(tb.ctx, ann.ID, "alpha", kimInv.ID) })
	if m, err := tb.accounts.MemberInviteMail(tb.ctx, lastArgs(tb)); err == nil || m != nil {
		t.Fatalf("the mail of a revoked invitation is sent: %v", err)
	}

	// Expired, a day after the cap's window: it says so; it can be re-sent.
	tb.advance(24 * time.Hour)
	leeInv, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "lee@example.test", app.MemberRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	leeLink, _ := tb.lastInviteLink()
	tb.advance(7 * 24 * time.Hour)
	lee := tb.person("lee@example.test", true)
	tb.refused("an expired link", app.ErrConflict, "invitation: this link expired on "+leeInv.ExpiresAt.UTC().Format(time.RFC3339)+"; ask the account's owners to send it again",
		func() error { _, err := tb.accounts.AcceptInvitation(tb.ctx, lee.ID, leeLink); return err })
	pending, err := tb.accounts.Invitations(tb.ctx, ann.ID, "alpha")
	if err != nil || len(pending) != 1 || pending[0].Status(time.Unix(0, tb.clock.Load())) != app.InvitationExpired {
		t.Fatalf("the pending list: %+v %v", pending, err)
	}
	tb.refused("a member lists invitations", app.ErrNotFound, `account: you are not a member of "alpha"`,
		func() error { _, err := tb.accounts.Invitations(tb.ctx, cat.ID, "alpha"); return err })
	if err := tb.accounts.ResendInvitation(tb.ctx, ann.ID, "alpha", leeInv.ID); err != nil {
		t.Fatal(err)
	}
	leeLink, _ = tb.lastInviteLink()
	if m, err := tb.accounts.AcceptInvitation(tb.ctx, lee.ID, leeLink); err != nil || m.Role != app.MemberRoleAdmin {
		t.Fatalf("lee joins after the resend: %+v %v", m, err)
	}
}

func lastArgs(tb *teamBundle) jobs.MemberInviteArgs {
	var raw []byte
	if err := tb.pool.QueryRow(tb.ctx, `SELECT args FROM river_job WHERE kind = 'member_invite' ORDER BY id DESC LIMIT 1`).Scan(&raw); err != nil {
		tb.t.Fatal(err)
	}
	var args jobs.MemberInviteArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		tb.t.Fatal(err)
	}
	return args
}

var teamSchema = json.RawMessage(`{"meeting_time":{"type":"timerange","label":"Meeting time"}}`)

// TestRolesRemovalAndWhoSees: members see and answer their own agents'
// rooms; owners and admins see every room, read-only for another's
// confirmation; the last owner stays; removing a member revokes their
// keys and sessions at once, keeps their rooms open, voids their one-tap
// links, and hands the confirmation to the owners with a note.
func TestRolesRemovalAndWhoSees(t *testing.T) {
	tb := setupTeams(t, 0, 0)
	ann := tb.person("ann@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	bob, cat, dan := tb.person("bob@example.test", true), tb.person("cat@example.test", true), tb.person("dan@example.test", true)
	for _, p := range []struct {
		u    app.User
		role app.MemberRole
	}{{bob, app.MemberRoleMember}, {cat, app.MemberRoleAdmin}, {dan, app.MemberRoleMember}} {
		if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", p.u.Email, p.role); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.accounts.SignUp(tb.ctx, dan.ID, "Beta", "beta"); err != nil {
		t.Fatal(err)
	}
	bobAgent, bobKey, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, bob.ID), "alpha", "Bob's agent", bob.Email)
	if err != nil {
		t.Fatal(err)
	}
	beta, _, err := tb.accounts.CreateAgent(tb.ctx, "beta", "Beta agent", dan.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, bobAgent, app.OpenInput{Schema: teamSchema, Title: "Bob's lunch"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.Join(tb.ctx, beta, app.JoinInput{InviteCode: open.InviteCode, Schema: teamSchema}); err != nil {
		t.Fatal(err)
	}
	conf, _, err := tb.rooms.RequestConfirmation(tb.ctx, bobAgent, open.RoomToken, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	roomID := open.View.RoomID
	link, err := tb.rooms.IssueOneTap(tb.ctx, tb.pool, roomID, conf.ID, "email")
	if err != nil {
		t.Fatal(err)
	}

	sees := func(u app.User) (bool, bool) {
		t.Helper()
		h, err := tb.rooms.ForHuman(tb.ctx, u.ID, roomID, negotiation.SideA, "")
		if app.ErrorCodeOf(err) == app.ErrNotFound {
			return false, false
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Side != negotiation.SideA { // alpha's seat is not theirs to see; beta's is
			return false, false
		}
		return true, h.CanDecide
	}
	listed := func(u app.User) int {
		t.Helper()
		rooms, _, err := tb.rooms.ListForHuman(tb.ctx, u.ID, app.FilterAll, "")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rooms {
			if r.RoomID == roomID && r.Side == negotiation.SideA {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		u             app.User
		see, decide   bool
		listed, count int
	}{{ann, true, false, 1, 1}, {bob, true, true, 1, 1}, {cat, true, false, 1, 1}, {dan, false, false, 0, 0}} {
		see, decide := sees(c.u)
		if see != c.see || decide != c.decide || listed(c.u) != c.listed {
			t.Errorf("%s: sees %v decides %v listed %d; want %v %v %d", c.u.Email, see, decide, listed(c.u), c.see, c.decide, c.listed)
		}
	}
	h, err := tb.rooms.ForHuman(tb.ctx, cat.ID, roomID, negotiation.SideA, "")
	if err != nil || h.SeatHuman != "bob@example.test" || h.SeatIsYou || h.SeatOrphaned {
		t.Fatalf("the card says whose: %+v %v", h, err)
	}
	tb.refused("an owner answers for a member", app.ErrNotFound, "confirmation not found", func() error {
		_, err := tb.rooms.DecideAsOwner(tb.ctx, ann.ID, roomID, conf.ID, "", true)
		return err
	})
	if n, err := tb.rooms.CountWaiting(tb.ctx, dan.ID); err != nil || n != 0 {
		t.Errorf("dan (beta's owner, alpha's member) counts %d waiting: %v", n, err)
	}

	// Roles: owners only; never the last owner.
	tb.refused("an admin changes a role", app.ErrUnauthorized, "role: only the account's owners change roles",
		func() error { return tb.accounts.ChangeRole(tb.ctx, cat.ID, "alpha", bob.ID, app.MemberRoleAdmin) })
	tb.refused("demoting the last owner", app.ErrConflict, "role: the account's last owner cannot be demoted; make another member owner first",
		func() error { return tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", ann.ID, app.MemberRoleAdmin) })
	tb.refused("the last owner leaves", app.ErrConflict, "member: you are the account's last owner and cannot leave it; make another member owner first",
		func() error { return tb.accounts.Leave(tb.ctx, ann.ID, "alpha") })
	tb.refused("an admin removes the owner", app.ErrUnauthorized,
		"member: only the account's owners remove an owner or admin, and owners and admins a member",
		func() error { return tb.accounts.RemoveMember(tb.ctx, cat.ID, "alpha", ann.ID) })
	tb.refused("a member removes a member", app.ErrUnauthorized,
		"member: only the account's owners remove an owner or admin, and owners and admins a member",
		func() error { return tb.accounts.RemoveMember(tb.ctx, dan.ID, "alpha", bob.ID) })
	tb.refused("removing a stranger", app.ErrNotFound, "member: no member 999999 in account alpha",
		func() error { return tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", 999999) })
	tb.refused("an unknown role", app.ErrInvalid, `role: must be owner, admin or member (got "root")`,
		func() error { return tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", bob.ID, "root") })
	tb.refused("a member's key issued by another member", app.ErrUnauthorized,
		"agent: only Bob's agent's human and the account's owners and admins manage its keys",
		func() error {
			_, err := tb.accounts.IssueAgentKey(app.AsActor(tb.ctx, dan.ID), "alpha", bobAgent.ID)
			return err
		})
	if _, err := tb.accounts.IssueAgentKey(app.AsActor(tb.ctx, cat.ID), "alpha", bobAgent.ID); err != nil {
		t.Fatalf("an admin issues a key for a member's agent: %v", err)
	}

	// The admin removes bob: the room's live pages are told, and ann, the
	// owner, is sent bob's pending confirmation, saying why.
	listener, err := pgx.Connect(tb.ctx, tb.pool.Config().ConnConfig.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close(context.Background())
	if _, err := listener.Exec(tb.ctx, "LISTEN "+app.RoomChannel); err != nil {
		t.Fatal(err)
	}
	bobSession, _, err := tb.accounts.StartSession(tb.ctx, bob.ID, app.SessionDevice{Browser: "Firefox"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.RemoveMember(tb.ctx, cat.ID, "alpha", bob.ID); err != nil {
		t.Fatal(err)
	}
	heard, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	note, err := listener.WaitForNotification(heard)
	cancel()
	if err != nil || note.Payload != fmt.Sprint(roomID) {
		t.Errorf("the live pages after the removal: %+v %v", note, err)
	}
	var jobArgs []byte
	if err := tb.pool.QueryRow(tb.ctx, `SELECT args FROM river_job WHERE args->>'topic' = 'request' AND (args->>'user_id')::bigint = $1`,
		ann.ID).Scan(&jobArgs); err != nil {
		t.Fatalf("no request to ann, the owner: %v", err)
	}
	var req jobs.EmailArgs
	if err := json.Unmarshal(jobArgs, &req); err != nil || req.ConfirmationID != conf.ID || req.RoomID != roomID {
		t.Fatalf("the request to ann: %s %v", jobArgs, err)
	}
	rc, err := river.NewClient(riverpgxv5.New(tb.pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	notes, err := app.NewNotifications(app.NotificationsConfig{Pool: tb.pool, River: rc, Rooms: tb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{3}, 32), BaseURL: "https://taasky.example"})
	if err != nil {
		t.Fatal(err)
	}
	// Written in ann's time zone: bob's side has no human any more.
	if err := tb.accounts.SetUserTimeZone(tb.ctx, ann.ID, "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	msg, err := notes.Notification(tb.ctx, jobs.Delivery{Notice: req.Notice, Channel: jobs.ChannelEmail})
	if err != nil || !msg.HandedOver || msg.To != "ann@example.test" || msg.OneTapURL == "" || msg.TimeZone.String() != "Asia/Tokyo" {
		t.Fatalf("the request to ann, composed: %+v %v", msg, err)
	}
	// Its link's page too.
	oneTap := msg.OneTapURL[strings.LastIndex(msg.OneTapURL, "/")+1:]
	if card, err := tb.rooms.OneTapCard(tb.ctx, oneTap); err != nil || card.TimeZone.String() != "Asia/Tokyo" {
		t.Fatalf("the link's page for ann: %+v %v", card, err)
	}
	// Its reminders go to the owners too: with the deadline 50 minutes
	// away, the one an hour before is due.
	clockNow := time.Unix(0, tb.clock.Load())
	if _, err := tb.pool.Exec(tb.ctx, `UPDATE rooms SET deadline = $2::timestamptz + interval '50 minutes' WHERE id = $1`, roomID, clockNow); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.pool.Exec(tb.ctx, `UPDATE confirmations SET requested_at = $2::timestamptz - interval '2 hours',
		remind_at = $2::timestamptz - interval '10 minutes' WHERE id = $1`, conf.ID, clockNow); err != nil {
		t.Fatal(err)
	}
	if n, err := notes.RemindDue(tb.ctx, 10); err != nil || n != 1 {
		t.Fatalf("the sweep found %d reminders due (%v), want 1", n, err)
	}
	if err := tb.pool.QueryRow(tb.ctx, `SELECT args FROM river_job WHERE args->>'topic' = 'reminder' AND (args->>'user_id')::bigint = $1`,
		ann.ID).Scan(&jobArgs); err != nil {
		t.Fatalf("no reminder to ann, the owner: %v", err)
	}
	var rem jobs.EmailArgs
	if err := json.Unmarshal(jobArgs, &rem); err != nil {
		t.Fatal(err)
	}
	if msg, err := notes.Notification(tb.ctx, jobs.Delivery{Notice: rem.Notice, Channel: jobs.ChannelEmail}); err != nil || !msg.HandedOver || msg.To != "ann@example.test" {
		t.Fatalf("the reminder to ann, composed: %+v %v", msg, err)
	}
	if _, err := notes.Notification(tb.ctx, jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicRequest, RoomID: roomID,
		Side: negotiation.SideA, UserID: cat.ID, ConfirmationID: conf.ID}, Channel: jobs.ChannelEmail}); !errors.As(err, new(*jobs.SkipError)) {
		t.Errorf("a request composed for cat, an admin: %v", err)
	}
	if _, err := tb.accounts.AuthenticateAgentKey(tb.ctx, bobKey.Key); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("bob's agent's key after the removal: %v", err)
	}
	if in, err := tb.accounts.SessionUser(tb.ctx, bobSession); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Errorf("bob's sessions were not ended: %+v %v", in, err)
	}
	if _, err := tb.rooms.DecideOneTap(tb.ctx, link, "", true); app.ErrorCodeOf(err) == "" {
		t.Errorf("bob's one-tap link still answers")
	}
	if see, _ := sees(bob); see {
		t.Error("bob still sees the room")
	}
	h, err = tb.rooms.ForHuman(tb.ctx, ann.ID, roomID, negotiation.SideA, "")
	if err != nil || !h.CanDecide || !h.SeatOrphaned || len(h.Notes) != 1 || h.Notes[0].Email != "bob@example.test" ||
		h.Notes[0].Kind != "member_left" || h.View.State.Terminal() {
		t.Fatalf("the room after bob left, for ann: %+v %v", h, err)
	}
	if _, decide := sees(cat); decide {
		t.Error("an admin may answer an orphaned confirmation; only owners may")
	}
	if h, err := tb.rooms.ForHuman(tb.ctx, dan.ID, roomID, negotiation.SideB, ""); err != nil || len(h.Notes) != 0 {
		t.Fatalf("the other side sees the note: %+v %v", h, err)
	}
	tb.refused("a key for the orphaned agent", app.ErrConflict, "agent: Bob's agent's human left the account, so it can have no new key; create a new agent",
		func() error {
			_, err := tb.accounts.IssueAgentKey(app.AsActor(tb.ctx, ann.ID), "alpha", bobAgent.ID)
			return err
		})
	d, err := tb.rooms.DecideAsOwner(tb.ctx, ann.ID, roomID, conf.ID, "", false)
	if err != nil || d.Result != negotiation.ResultDeclined {
		t.Fatalf("the owner answers the orphaned confirmation: %+v %v", d, err)
	}
	entries, _, err := tb.accounts.AuditLog(tb.ctx, cat.ID, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 3 || entries[0].Action != app.AuditConfirmationAnswer || entries[0].Actor != "ann@example.test" ||
		entries[1].Action != app.AuditMemberRemoved || entries[1].Detail["email"] != "bob@example.test" || entries[1].Actor != "cat@example.test" {
		t.Fatalf("the audit log: %+v", entries[:min(3, len(entries))])
	}
	tb.refused("a member reads the audit log", app.ErrUnauthorized, "audit log: only the account's owners and admins may read it",
		func() error { _, _, err := tb.accounts.AuditLog(tb.ctx, dan.ID, "alpha", ""); return err })
}

// TestCapsOfOne: SIGNUP_DAILY_CAP=1 and INVITE_EMAIL_DAILY_CAP=1 (an
// operator's strict settings) refuse in the singular: "1 account", "1
// invitation", not "1 accounts", "1 invitations" (the rooms' invitation
// cap said it right, TestInviteEmailCapOfOne; these two did not).
func TestCapsOfOne(t *testing.T) {
	tb := setupTeams(t, 1, 1)
	ann := tb.person("ann@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	tb.refused("past a sign-up cap of one", app.ErrConflict, "you have created 1 account in the last 24 hours, the most allowed; try again from 2026-11-03T09:00:00Z",
		func() error { _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Beta", "beta"); return err })
	if _, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "kim@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	tb.refused("past an invitation cap of one", app.ErrConflict,
		"email: this account has sent 1 invitation in the last 24 hours, the most allowed; nothing was sent. Try again from 2026-11-03T09:00:00Z",
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "lee@example.test", app.MemberRoleMember)
			return err
		})
}
