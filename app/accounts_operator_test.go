package app_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestOperators: a member flagged in any account is an operator; the flag
// needs a membership, and comes off again.
func TestOperators(t *testing.T) {
	b := setup(t)
	if _, err := b.accounts.CreateAccount(b.ctx, "alpha", "Alpha", "ann@example.test"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.accounts.CreateAccount(b.ctx, "beta", "Beta", "ben@example.test"); err != nil {
		t.Fatal(err)
	}
	ann, err := b.accounts.UserByEmail(b.ctx, "ann@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := b.accounts.IsOperator(b.ctx, ann.ID); ok || err != nil {
		t.Fatalf("before: %v %v", ok, err)
	}
	if err := b.accounts.SetOperator(b.ctx, "alpha", "Ann@Example.test", true); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.accounts.IsOperator(b.ctx, ann.ID); !ok || err != nil {
		t.Fatalf("after: %v %v", ok, err)
	}
	for _, c := range []struct{ slug, email, want string }{
		{"beta", "ann@example.test", "ann@example.test is not a member of beta"},
		{"gamma", "ann@example.test", "account not found: gamma"},
		{"alpha", "nobody", "email: must be an email address"},
	} {
		if err := b.accounts.SetOperator(b.ctx, c.slug, c.email, true); !strings.Contains(app.ErrorMessageOf(err), c.want) {
			t.Errorf("SetOperator(%s, %s): %v, want %q", c.slug, c.email, err, c.want)
		}
	}
	if err := b.accounts.SetOperator(b.ctx, "alpha", "ann@example.test", false); err != nil {
		t.Fatal(err)
	}
	if ok, _ := b.accounts.IsOperator(b.ctx, ann.ID); ok {
		t.Fatal("still an operator")
	}
	// The account's audit log says so, by an operator, naming whom: the
	// flag opens the installation's internals (refused tries leave none).
	entries, _, err := b.accounts.AuditLogAsOperator(b.ctx, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.Action == app.AuditOperatorGranted || e.Action == app.AuditOperatorRevoked {
			got = append(got, string(e.Action)+" "+e.Actor+" "+e.Detail["email"])
		}
	}
	if want := []string{"operator.revoked operator ann@example.test", "operator.granted operator ann@example.test"}; !slices.Equal(got, want) {
		t.Errorf("the audit log says %q, want %q", got, want)
	}
	if entries, _, _ := b.accounts.AuditLogAsOperator(b.ctx, "beta", ""); slices.ContainsFunc(entries, func(e app.AuditEntry) bool {
		return e.Action == app.AuditOperatorGranted
	}) {
		t.Error("a refused flag is in beta's audit log")
	}
	if ok, err := b.accounts.IsOperator(b.ctx, 999999); ok || err != nil {
		t.Fatalf("a user that does not exist: %v %v", ok, err)
	}
}
