package app_test

import (
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
	if ok, err := b.accounts.IsOperator(b.ctx, 999999); ok || err != nil {
		t.Fatalf("a user that does not exist: %v %v", ok, err)
	}
}
