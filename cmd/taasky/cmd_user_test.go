package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/bench"
)

// TestUserRelink: a person whose account at the identity provider was
// re-created signs in with the same verified address and a new subject:
// refused, the page tells them to ask the operator. `taasky user relink`
// releases their sign-in (bad addresses, an unknown person or one who
// never signed in are refused and change nothing): the old login's
// sessions end, the new login signs in as them and sees their account's
// room, the old login is then refused, and the account's audit log
// says so.
func TestUserRelink(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	p := start(t, e, "dev")
	out := p.waitStdout(t, "Stop with Ctrl-C.")
	base := e["BASE_URL"]
	admin := env{"DATABASE_URL": e["DATABASE_URL"], "BASE_URL": base}
	found := devAgent.FindAllStringSubmatch(out, -1)
	if len(found) != 2 {
		t.Fatalf("dev printed %d agents:\n%s", len(found), out)
	}
	ctx := context.Background()
	agent, err := bench.Connect(ctx, found[0][1], found[0][2], http.DefaultTransport, &bench.Latencies{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	schema := map[string]any{"meeting_time": map[string]any{"type": "timerange", "label": "Meeting time"}}
	if err := agent.Call(ctx, "negotiation_open", map[string]any{"subject_schema": schema, "title": "Relinked kick-off"}, nil); err != nil {
		t.Fatal(err)
	}
	old, resp, page := signIn(t, base, "/settings", "alice@example.test")
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/settings" {
		t.Fatalf("alice's first sign-in: %d %s\n%.500s", resp.StatusCode, resp.Request.URL, page)
	}
	pool, err := pgxpool.New(ctx, e["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// Her account at the provider was re-created: Taasky knows her by the
	// old one's subject, the provider now gives another.
	if _, err := pool.Exec(ctx, `UPDATE users SET oidc_subject = 'dev-old-subject' WHERE email = 'alice@example.test'`); err != nil {
		t.Fatal(err)
	}
	if _, resp, page := signIn(t, base, "/login?next=/", "alice@example.test"); resp.StatusCode != http.StatusConflict ||
		!strings.Contains(page, "already linked to another login. If your account at your sign-in provider was re-created") ||
		!strings.Contains(page, "operator to relink your sign-in to your address") {
		t.Fatalf("the new login before relink: %d\n%.3000s", resp.StatusCode, page)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "user relink: missing --email (see 'taasky user relink -h')"},
		{[]string{"--email", "alice"}, `relink: email: must be an email address like name@example.com (got "alice")`},
		{[]string{"--email", "nobody@example.test"}, "relink: email: no user has the address nobody@example.test"},
		{[]string{"--email", "bob@example.test"}, "relink: email: bob@example.test has no sign-in to relink (they never signed in, or it was released already and waits for their next sign-in)"},
	} {
		if out, _, err := runCmd(t, admin, append([]string{"user", "relink"}, c.args...)...); err == nil || err.Error() != c.want || out != "" {
			t.Errorf("user relink %v: %q %v, want %q", c.args, out, err, c.want)
		}
	}
	if resp, err := old.Get(base + "/settings"); err != nil || resp.StatusCode != 200 || resp.Request.URL.Path != "/settings" {
		t.Fatalf("the old login's session after refused relinks: %v %v", resp, err)
	}

	out, _, err = runCmd(t, admin, "user", "relink", "--email", "Alice@example.test")
	if want := "alice@example.test no longer signs in with " + base + "/dev-oidc (subject dev-old-subject): their sessions ended. Their next sign-in\n" +
		"whose provider verifies alice@example.test is linked to them, in demo-a (the audit logs say so).\n"; err != nil || out != want {
		t.Fatalf("user relink: %q %v, want %q", out, err, want)
	}
	resp, err = old.Get(base + "/settings")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path == "/settings" {
		t.Errorf("the old login's session still works after relink: %d %s", resp.StatusCode, resp.Request.URL)
	}

	// Her home lists her account's room.
	if _, resp, page := signIn(t, base, "/login?next=/", "alice@example.test"); resp.StatusCode != 200 || resp.Request.URL.Path != "/" ||
		!strings.Contains(page, "Relinked kick-off") || !strings.Contains(page, "Demo a ·") {
		t.Fatalf("the new login after relink: %d %s\n%.3000s", resp.StatusCode, resp.Request.URL, page)
	}

	accounts := app.NewAccounts(pool)
	_, err = accounts.LoginOIDC(ctx, app.OIDCIdentity{Issuer: base + "/dev-oidc", Subject: "dev-old-subject", Email: "alice@example.test", EmailVerified: true})
	if app.ErrorCodeOf(err) != app.ErrConflict {
		t.Errorf("the old login after relink: %v", err)
	}
	entries, _, err := accounts.AuditLogAsOperator(ctx, "demo-a", "")
	if err != nil || len(entries) == 0 || entries[0].Action != app.AuditSignInReleased || entries[0].Actor != app.AuditOperator ||
		entries[0].Detail["email"] != "alice@example.test" || entries[0].Detail["from"] != base+"/dev-oidc" {
		t.Errorf("demo-a's audit log: %+v %v", entries, err)
	}
}
