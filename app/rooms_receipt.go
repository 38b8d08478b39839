package app

import (
	"context"
	"fmt"
	"strconv"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// Receipt returns an agreed room's receipt (a JWS in compact form: see
// package receipt): the agreed email, the room page, an agent's read and a
// webhook all get the same bytes. The move that agrees issues it (commit);
// a room agreed before receipts existed, or while no key was configured,
// gets one the first time it is asked for. A room that is not agreed has
// none (ErrConflict).
func (s *Rooms) Receipt(ctx context.Context, roomID int64) (string, error) {
	return s.receiptOn(ctx, s.pool, roomID)
}

// receiptOn is Receipt through q (the pool, or a transaction).
func (s *Rooms) receiptOn(ctx context.Context, q querier, roomID int64) (string, error) {
	if jws, ok, err := selectReceipt(ctx, q, roomID); err != nil || ok {
		return jws, err
	}
	if s.receipts == nil {
		return "", fmt.Errorf("receipt %d: no receipt keys configured", roomID)
	}
	row, err := readRoom(ctx, q, roomID, false)
	if err != nil {
		return "", err
	}
	r, err := s.receiptFacts(ctx, q, row)
	if err != nil {
		return "", err
	}
	r.IssuedAt = s.clock(row).UTC() // the database's moment of the read, after the agreement's
	jws, err := s.receipts.Sign(r)
	if err != nil {
		return "", err
	}
	// Two first asks at once: one insert wins, both return its receipt.
	return insertReceipt(ctx, q, roomID, r.KeyID, jws, r.IssuedAt)
}

// issueReceipt signs and keeps the receipt of the room a change just
// agreed, in the change's transaction, after its writes: the room and its
// receipt commit together, and nobody who is told of the agreement has to
// issue it.
func (s *Rooms) issueReceipt(ctx context.Context, q querier, row *roomRow) error {
	r, err := s.receiptFacts(ctx, q, row)
	if err != nil {
		return err
	}
	// Issued at the agreement's moment: the database's, when the
	// statement that read the room for the agreeing change began (as the
	// log's last event), on whichever node.
	r.IssuedAt = s.clock(row).UTC()
	jws, err := s.receipts.Sign(r)
	if err != nil {
		return err
	}
	return keepReceipt(ctx, q, row.ID, r.KeyID, jws, r.IssuedAt)
}

// ReceiptForHuman is Receipt for a person who may see the room (a seat of
// one of their accounts is in it); to anyone else the room is not found.
func (s *Rooms) ReceiptForHuman(ctx context.Context, userID, roomID int64) (string, error) {
	if err := s.SeesRoom(ctx, userID, roomID); err != nil {
		return "", err
	}
	return s.Receipt(ctx, roomID)
}

// receiptFacts gathers what a receipt says of an agreed room: from its row's log
// (the terms, who approved when: negotiation.Room.Agreement), its head,
// both accounts' names and each confirmation's channel and human.
func (s *Rooms) receiptFacts(ctx context.Context, q querier, row *roomRow) (*receipt.Receipt, error) {
	roomID := row.ID
	room, err := s.restoreSnapshot(row.Snapshot, [2][]byte{}) // no limits: a receipt holds none
	if err != nil {
		return nil, fmt.Errorf("receipt %d: %w", roomID, err)
	}
	events, err := row.events()
	if err != nil {
		return nil, err
	}
	ag, ok := room.Agreement(events)
	if !ok {
		return nil, refuse(ErrConflict, "error.no_receipt", "room %s is not agreed: it has no receipt", strconv.FormatInt(roomID, 10))
	}
	facts, err := selectReceiptFacts(ctx, q, roomID, ag.Confirmations[0].ID, ag.Confirmations[1].ID)
	if err != nil {
		return nil, err
	}
	r := &receipt.Receipt{
		Room:        receipt.Room{ID: row.ID, AgreedAt: events[len(events)-1].At.UTC()},
		Terms:       ag.Terms,
		SubjectHash: string(ag.Hash),
		Log:         receipt.Log{Head: string(row.Head), Events: row.Seq},
	}
	if row.Title != nil {
		r.Room.Title = *row.Title
	}
	for i, side := range []negotiation.Side{negotiation.SideA, negotiation.SideB} {
		c := ag.Confirmations[i]
		f := facts[i]
		p := receipt.Party{Account: f.account, Schema: room.Party(side).Schema.Canonical(),
			Confirmation: receipt.Confirmation{By: f.by, Channel: f.channel, Verdict: string(c.Verdict), At: c.At.UTC()}}
		if i == 0 {
			r.Parties.A = p
		} else {
			r.Parties.B = p
		}
	}
	return r, nil
}
