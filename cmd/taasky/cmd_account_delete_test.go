package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestAccountDeleteCommand: a --confirm that is not the slug and an
// unknown account are refused and change nothing; then the account is
// deleted (--json), its agent's key stops working, its owner (in no other
// account) is erased, another account is untouched, and `taasky check`
// passes.
func TestAccountDeleteCommand(t *testing.T) {
	t.Parallel()
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret}
	for _, args := range [][]string{
		{"account", "create", "--slug", "acme", "--name", "Acme", "--owner-email", "alice@example.test"},
		{"account", "create", "--slug", "beta", "--name", "Beta", "--owner-email", "bea@example.test"},
	} {
		if _, _, err := runCmd(t, e, args...); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runCmd(t, e, "agent", "create", "--account", "acme", "--name", "Bot", "--owner-email", "alice@example.test", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var agent map[string]string
	if err := json.Unmarshal([]byte(out), &agent); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(t.Context(), e["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	accounts := app.NewAccounts(pool)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--account", "acme", "--confirm", "ACME"}, "delete account: confirm: type the account's slug, acme, exactly as it is written, to delete the account"},
		{[]string{"--account", "acme", "--confirm", "acm"}, "delete account: confirm: type the account's slug, acme, exactly as it is written, to delete the account"},
		{[]string{"--account", "nope", "--confirm", "nope"}, "delete account: account not found: nope"},
	} {
		if _, _, err := runCmd(t, e, append([]string{"account", "delete"}, c.args...)...); err == nil || err.Error() != c.want {
			t.Errorf("account delete %v: %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := accounts.AuthenticateAgentKey(t.Context(), agent["key"]); err != nil {
		t.Fatalf("a refused deletion revoked the key: %v", err)
	}

	out, _, err = runCmd(t, e, "account", "delete", "--account", "acme", "--confirm", "acme", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || got["account"] != "acme" || got["deleted"] != true ||
		got["keys_revoked"] != 1.0 || got["users_erased"] != 1.0 || got["rooms_closed"] != 0.0 {
		t.Fatalf("account delete --json: %q %v", out, err)
	}
	if _, err := accounts.AuthenticateAgentKey(t.Context(), agent["key"]); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("the deleted account's key: %v", err)
	}
	if _, err := accounts.UserByEmail(t.Context(), "alice@example.test"); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Errorf("the owner was not erased: %v", err)
	}
	if _, err := accounts.UserByEmail(t.Context(), "bea@example.test"); err != nil {
		t.Errorf("beta's owner: %v", err)
	}
	if _, _, err := runCmd(t, e, "account", "delete", "--account", "acme", "--confirm", "acme"); err == nil ||
		err.Error() != "delete account: account not found: acme" {
		t.Errorf("deleting it again: %v", err)
	}
	out, _, err = runCmd(t, e, "check")
	if err != nil || !strings.HasSuffix(out, ", 0 differences\n") {
		t.Errorf("check: %q %v", out, err)
	}
	// The slug is free again.
	out, _, err = runCmd(t, e, "account", "create", "--slug", "acme", "--name", "Acme again", "--owner-email", "alice@example.test")
	if err != nil || !strings.HasPrefix(out, "Created account acme") {
		t.Errorf("creating acme again: %q %v", out, err)
	}
}
