package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// AccountExport is what an account takes with it: each room it sits in,
// as its own side sees it (its schema, the rounds, the terms, and its own
// limits, never the other side's; an agreed room's signed receipt), its
// audit log, and the keys that verify the receipts: they still prove the
// agreements offline once the account is deleted.
type AccountExport struct {
	Account    string        `json:"account"`
	Name       string        `json:"name"`
	ExportedAt string        `json:"exported_at"`
	Rooms      []ExportRoom  `json:"rooms"`
	AuditLog   []ExportAudit `json:"audit_log"`
	// ReceiptIssuer and ReceiptKeys (a JWK Set, as /.well-known/jwks.json
	// publishes it) verify the rooms' receipts (`taasky receipt verify
	// --jwks`); absent when the service signs no receipts.
	ReceiptIssuer string          `json:"receipt_issuer,omitempty"`
	ReceiptKeys   json.RawMessage `json:"receipt_keys,omitempty"`
}

// ExportRoom is one room of the export, seen from the account's side.
type ExportRoom struct {
	ID     int64            `json:"id"`
	Side   negotiation.Side `json:"side"`
	Schema json.RawMessage  `json:"schema"`
	Limits json.RawMessage  `json:"limits"`
	// LimitsSealed: the side's limits were sealed with a SECRET_KEY this
	// installation no longer has (it started over): Limits is null, and
	// the view says nothing of them.
	LimitsSealed bool `json:"limits_sealed,omitempty"`
	*View
	// Receipt is an agreed room's signed receipt (JWS compact form).
	Receipt string `json:"receipt,omitempty"`
}

// ExportAudit is one audit log entry of the export.
type ExportAudit struct {
	At     string            `json:"at"`
	Actor  string            `json:"actor"`
	Action AuditAction       `json:"action"`
	Detail map[string]string `json:"detail"`
}

// WriteAccountExport writes the account's export (an AccountExport, as
// JSON) to w a room at a time: however many rooms and audit entries the
// account has, only one is in memory. Owners and admins may; the export
// is in the audit log. Nothing is written when it is refused; on another
// error w holds a part: the caller drops it.
func (s *Rooms) WriteAccountExport(ctx context.Context, actorID int64, slug string, w io.Writer) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		m, err := selectMembership(ctx, tx, actorID, slug)
		if errors.Is(err, pgx.ErrNoRows) {
			return refuse(ErrNotFound, "error.not_member", "account: you are not a member of %q", slug)
		} else if err != nil {
			return err
		}
		if !May(m.Role, ActManageAccount, Colleagues) {
			return refuse(ErrUnauthorized, "error.export_who", "export: only the account's owners and admins export it")
		}
		now := s.now()
		seats, err := selectAccountSeats(ctx, tx, m.AccountID)
		if err != nil {
			return err
		}
		out := newJSONOut(w)
		out.field("account", slug)
		out.field("name", m.AccountName)
		out.field("exported_at", now.UTC().Format(time.RFC3339))
		out.array("rooms")
		for _, st := range seats {
			r, err := s.exportRoom(ctx, tx, st)
			if err != nil {
				return err
			}
			out.item(r)
		}
		out.end()
		out.array("audit_log")
		for before := int64(1<<63 - 1); ; {
			page, err := selectAudit(ctx, tx, m.AccountID, before, 500)
			if err != nil {
				return err
			}
			for _, e := range page {
				out.item(ExportAudit{At: e.At.UTC().Format(time.RFC3339), Actor: e.Actor, Action: e.Action, Detail: e.Detail})
			}
			if len(page) < 500 {
				break
			}
			before = page[len(page)-1].ID
		}
		out.end()
		if s.receipts != nil {
			out.field("receipt_issuer", s.receipts.Issuer())
			out.field("receipt_keys", json.RawMessage(s.receipts.JWKSJSON()))
		}
		if err := out.close(); err != nil {
			return err
		}
		return insertAudit(ctx, tx, m.AccountID, actorID, AuditAccountExported, s.dbMoment(), map[string]string{"rooms": fmt.Sprint(len(seats))})
	})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// exportRoom is one room as seat's side sees it, for an export: its view,
// its own schema and limits (never the other side's), and an agreed
// room's receipt (signed now if it never was).
func (s *Rooms) exportRoom(ctx context.Context, tx pgx.Tx, st accountSeat) (ExportRoom, error) {
	row, err := selectRoom(ctx, tx, st.roomID, false)
	if err != nil {
		return ExportRoom{}, err
	}
	ld, err := s.restoreLax(row, st.side) // an export leaves no room out
	if err != nil {
		return ExportRoom{}, err
	}
	v, err := s.view(ctx, tx, ld, st.side)
	if err != nil {
		return ExportRoom{}, err
	}
	r := ExportRoom{ID: st.roomID, Side: st.side, Schema: json.RawMessage("null"), Limits: json.RawMessage("null"), LimitsSealed: ld.sealed, View: v}
	if p := ld.room.Party(st.side); p.Schema != nil {
		r.Schema = p.Schema.Canonical()
		if !ld.sealed && p.Limits != nil && len(p.Limits.Raw()) > 0 {
			r.Limits = p.Limits.Raw()
		}
	}
	if ld.room.State == negotiation.StateAgreed && s.receipts != nil {
		if r.Receipt, err = s.receiptOn(ctx, tx, st.roomID); err != nil {
			return ExportRoom{}, err
		}
	}
	return r, nil
}
