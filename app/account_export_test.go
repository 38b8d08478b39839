package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

var exportSchema = json.RawMessage(`{"fee":{"type":"money","label":"Fee","currency":"EUR"}}`)

// TestExportAccount: an owner's export holds the account's rooms from its
// side (its schema, its limits, the terms) and its audit log, never the
// other side's limits; it is audited; a member and a stranger are refused.
func TestExportAccount(t *testing.T) {
	tb, ann, ada, mo, oz := lifeTeam(t)
	mine, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, ann.ID), "alpha", "Ann's agent", ann.Email)
	if err != nil {
		t.Fatal(err)
	}
	theirs, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, oz.ID), "ozone", "Oz's agent", oz.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, mine, app.OpenInput{Schema: exportSchema, Title: "Fee talk",
		Limits:  json.RawMessage(`{"fee":{"max":{"amount":"876.54","currency":"EUR"}}}`),
		Subject: json.RawMessage(`{"fee":{"amount":"500.00","currency":"EUR"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.Join(tb.ctx, theirs, app.JoinInput{InviteCode: open.InviteCode, Schema: exportSchema,
		Limits: json.RawMessage(`{"fee":{"min":{"amount":"19.37","currency":"EUR"}}}`)}); err != nil {
		t.Fatal(err)
	}
	ex, err := tb.rooms.ExportAccount(tb.ctx, ada.ID, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	if len(ex.Rooms) != 1 || ex.Rooms[0].Side != "a" || ex.Rooms[0].Title != "Fee talk" || !strings.Contains(s, "876.54") ||
		!strings.Contains(s, `"500.00"`) || !strings.Contains(s, `"label":"Fee"`) || strings.Contains(s, "19.37") {
		t.Fatalf("the export:\n%s", s)
	}
	if !strings.Contains(s, `"action":"account.created"`) || !strings.Contains(s, `"action":"agent.created"`) {
		t.Fatalf("the export's audit log:\n%s", s)
	}
	entries, _, err := tb.accounts.AuditLog(tb.ctx, ann.ID, "alpha", "")
	if err != nil || entries[0].Action != app.AuditAccountExported || entries[0].Actor != "ada@example.test" || entries[0].Detail["rooms"] != "1" {
		t.Fatalf("the export's audit entry: %+v %v", entries[0], err)
	}
	// The other side's export holds its own limits only.
	ozEx, err := tb.rooms.ExportAccount(tb.ctx, oz.ID, "ozone")
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ = json.Marshal(ozEx); !strings.Contains(string(raw), "19.37") || strings.Contains(string(raw), "876.54") {
		t.Fatalf("the other side's export:\n%s", raw)
	}
	tb.refused("a member exports", app.ErrUnauthorized, "export: only the account's owners and admins export it",
		func() error { _, err := tb.rooms.ExportAccount(tb.ctx, mo.ID, "alpha"); return err })
	tb.refused("a stranger exports", app.ErrNotFound, `account: you are not a member of "alpha"`,
		func() error { _, err := tb.rooms.ExportAccount(tb.ctx, oz.ID, "alpha"); return err })
}
