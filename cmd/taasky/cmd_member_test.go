package main

import (
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestMemberCommands: an operator adds a member, changes roles, cannot
// demote the last owner, and removes a member, whose agent's key stops
// working at once; each with --json, and each in the audit log (an
// agent created with its first key is one entry).
func TestMemberCommands(t *testing.T) {
	t.Parallel()
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "https://taasky.example.com"}
	if _, _, err := runCmd(t, e, "account", "create", "--slug", "acme", "--name", "Acme", "--owner-email", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	asJSON := func(args ...string) map[string]any {
		t.Helper()
		out, _, err := runCmd(t, e, append(args, "--json")...)
		if err != nil {
			t.Fatalf("taasky %v: %v", args, err)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("taasky %v: %q: %v", args, out, err)
		}
		return got
	}
	if got := asJSON("member", "add", "--account", "acme", "--email", "Bob@Example.test", "--role", "admin"); got["role"] != "admin" || got["account"] != "acme" {
		t.Errorf("member add: %v", got)
	}
	if _, _, err := runCmd(t, e, "member", "add", "--account", "acme", "--email", "bob@example.test"); err == nil ||
		err.Error() != "add member: email: bob@example.test is already a member of acme" {
		t.Errorf("adding a member twice: %v", err)
	}
	if _, _, err := runCmd(t, e, "member", "add", "--account", "acme", "--email", "kim@example.test", "--role", "boss"); err == nil ||
		err.Error() != `role: must be owner, admin or member (got "boss")` {
		t.Errorf("an unknown role: %v", err)
	}
	// member role without --role is a mistake, not a demotion to member.
	if _, _, err := runCmd(t, e, "member", "role", "--account", "acme", "--email", "bob@example.test"); err == nil ||
		err.Error() != "member role: missing --role (see 'taasky member role -h')" {
		t.Errorf("member role without --role: %v", err)
	}
	if _, _, err := runCmd(t, e, "member", "role", "--account", "acme", "--email", "alice@example.test", "--role", "member"); err == nil ||
		err.Error() != "change role: role: the account's last owner cannot be demoted; make another member owner first" {
		t.Errorf("demoting the last owner: %v", err)
	}
	if got := asJSON("member", "role", "--account", "acme", "--email", "bob@example.test", "--role", "owner"); got["role"] != "owner" {
		t.Errorf("member role: %v", got)
	}
	out, _, err := runCmd(t, e, "agent", "create", "--account", "acme", "--name", "Bob's", "--owner-email", "bob@example.test", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var agent map[string]string
	if err := json.Unmarshal([]byte(out), &agent); err != nil {
		t.Fatal(err)
	}
	if got := asJSON("member", "remove", "--account", "acme", "--email", "bob@example.test"); got["removed"] != true {
		t.Errorf("member remove: %v", got)
	}
	// bob is still a user, no longer a member: named by his email, not an id.
	for _, c := range [][]string{
		{"role", "--account", "acme", "--email", "bob@example.test", "--role", "admin"},
		{"remove", "--account", "acme", "--email", "Bob@example.test"},
	} {
		op := map[string]string{"role": "change role", "remove": "remove member"}[c[0]]
		if _, _, err := runCmd(t, e, append([]string{"member"}, c...)...); err == nil ||
			err.Error() != op+": bob@example.test is not a member of acme" {
			t.Errorf("member %s of a non-member: %v", c[0], err)
		}
	}
	pool, err := pgxpool.New(t.Context(), e["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	accounts := app.NewAccounts(pool)
	if _, err := accounts.AuthenticateAgentKey(t.Context(), agent["key"]); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("the removed member's agent key: %v", err)
	}
	entries, _, err := accounts.AuditLogAsOperator(t.Context(), "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	var actions []app.AuditAction
	for _, en := range entries {
		actions = append(actions, en.Action)
		if en.Actor != "operator" {
			t.Errorf("%s by %q, want operator", en.Action, en.Actor)
		}
	}
	want := []app.AuditAction{app.AuditMemberRemoved, app.AuditAgentCreated, app.AuditRoleChanged, app.AuditMemberAdded, app.AuditAccountCreated}
	if len(actions) != len(want) {
		t.Fatalf("audit log %v, want %v", actions, want)
	}
	for i := range want {
		if actions[i] != want[i] {
			t.Fatalf("audit log %v, want %v", actions, want)
		}
	}
}
