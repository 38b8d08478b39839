package app

import (
	"testing"

	"github.com/taasky/taasky/internal/netguard"
)

// TestWebhookEndpointsStayInTheirAccount: an owner lists their account's
// endpoints only, and another account's endpoint, named by its id through
// their own account, is not found to rotate, turn on, read or delete; it
// is left as it was. An admin manages the endpoints as an owner does.
func TestWebhookEndpointsStayInTheirAccount(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	w := NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, CheckHost: netguard.CheckHost})
	all := eventStrings(WebhookEvents)
	alphaOwner, betaOwner := rb.a.OwnerUserID, rb.b.OwnerUserID
	ea, _, err := w.CreateWebhook(rb.ctx, alphaOwner, "alpha", "https://93.184.216.34/alpha", all)
	if err != nil {
		t.Fatal(err)
	}
	eb, _, err := w.CreateWebhook(rb.ctx, betaOwner, "beta", "https://93.184.216.34/beta", all)
	if err != nil {
		t.Fatal(err)
	}
	if es, err := w.ListWebhooks(rb.ctx, betaOwner, "beta"); err != nil || len(es) != 1 || es[0].ID != eb.ID {
		t.Fatalf("beta's endpoints: %+v %v", es, err)
	}
	for what, do := range map[string]func() error{
		"rotates":  func() error { _, err := w.RotateWebhookSecret(rb.ctx, betaOwner, "beta", ea.ID); return err },
		"turns on": func() error { return w.EnableWebhook(rb.ctx, betaOwner, "beta", ea.ID) },
		"reads":    func() error { _, _, err := w.WebhookLog(rb.ctx, betaOwner, "beta", ea.ID); return err },
		"deletes":  func() error { return w.DeleteWebhook(rb.ctx, betaOwner, "beta", ea.ID) },
	} {
		if err := do(); ErrorCodeOf(err) != ErrNotFound {
			t.Errorf("beta's owner %s alpha's endpoint: %v", what, err)
		}
	}
	es, err := w.ListWebhooks(rb.ctx, alphaOwner, "alpha")
	if err != nil || len(es) != 1 || es[0].ID != ea.ID || es[0].RotatedAt != nil {
		t.Fatalf("alpha's endpoints after the refusals: %+v %v", es, err)
	}

	acc := NewAccounts(rb.pool)
	if err := acc.AddMemberAsOperator(rb.ctx, "alpha", "admin@example.test", MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	admin, err := acc.UserByEmail(rb.ctx, "admin@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.RotateWebhookSecret(rb.ctx, admin.ID, "alpha", ea.ID); err != nil {
		t.Errorf("an admin rotates the account's endpoint's secret: %v", err)
	}
	if _, err := acc.RenameAccount(rb.ctx, admin.ID, "alpha", "Alpha Studio"); err != nil {
		t.Errorf("an admin renames the account: %v", err)
	}
	if _, _, err := acc.AuditLog(rb.ctx, admin.ID, "alpha", ""); err != nil {
		t.Errorf("an admin reads the audit log: %v", err)
	}
	if err := w.DeleteWebhook(rb.ctx, admin.ID, "alpha", ea.ID); err != nil {
		t.Errorf("an admin deletes the account's endpoint: %v", err)
	}
}
