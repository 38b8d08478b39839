package migrations_test

import (
	"testing"
)

// TestInvitationsOfSendersGone: migration 36 revokes the waiting
// invitations whose sender left, or no longer may invite to their role,
// and leaves the rest: an owner's, an admin's of a member, an operator's,
// one accepted.
func TestInvitationsOfSendersGone(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, provider := emptyDatabase(t)
	if _, err := provider.UpTo(ctx, 35); err != nil {
		t.Fatal(err)
	}
	var account int64
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (slug, name) VALUES ('alpha', 'Alpha') RETURNING id`).Scan(&account); err != nil {
		t.Fatal(err)
	}
	users := map[string]int64{}
	for _, who := range []string{"owner", "admin", "member", "gone"} {
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO users (email) VALUES ($1) RETURNING id`, who+"@example.test").Scan(&id); err != nil {
			t.Fatal(err)
		}
		users[who] = id
		if who != "gone" {
			if _, err := pool.Exec(ctx, `INSERT INTO memberships (account_id, user_id, role) VALUES ($1, $2, $3)`, account, id, who); err != nil {
				t.Fatal(err)
			}
		}
	}
	invite := func(email, role string, by *int64, accepted bool) {
		t.Helper()
		if _, err := pool.Exec(ctx, `INSERT INTO account_invitations (account_id, email, role, token_hash, invited_by,
			created_at, sent_at, expires_at, accepted_at)
			VALUES ($1, $2::text, $3, sha256(convert_to($2::text, 'UTF8')), $4, now(), now(), now() + interval '7 days', CASE WHEN $5 THEN now() END)`,
			account, email, role, by, accepted); err != nil {
			t.Fatal(err)
		}
	}
	id := func(who string) *int64 { v := users[who]; return &v }
	invite("a@example.test", "owner", id("owner"), false)
	invite("b@example.test", "member", id("admin"), false)
	invite("c@example.test", "admin", id("admin"), false)   // revoked
	invite("d@example.test", "member", id("member"), false) // revoked
	invite("e@example.test", "member", id("gone"), false)   // revoked
	invite("f@example.test", "member", id("gone"), true)
	invite("g@example.test", "owner", nil, false)
	if _, err := provider.UpTo(ctx, 36); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := pool.QueryRow(ctx, `SELECT string_agg(split_part(email, '@', 1), ' ' ORDER BY email)
		FROM account_invitations WHERE revoked_at IS NOT NULL`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "c d e" {
		t.Errorf("revoked: %q, want c d e", got)
	}
}
