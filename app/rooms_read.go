package app

import (
	"context"
	"strconv"

	"github.com/taasky/taasky/negotiation"
)

// Read is negotiation_read: the side's full view. It changes nothing.
func (s *Rooms) Read(ctx context.Context, agent Agent, roomToken string) (*View, error) {
	if roomToken == "" {
		return nil, Errorf(ErrInvalid, "room_token: required")
	}
	// One statement reads everything the view needs (selectSeat): it sees
	// one snapshot without a transaction around it.
	row, side, err := selectSeat(ctx, s.pool, secretHash(roomToken), agent.AccountID, false)
	if err != nil {
		return nil, err
	}
	ld, err := s.restoreFor(row, side)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, s.pool, ld, side)
}

// Summary is one room in a list.
type Summary struct {
	RoomID              int64                    `json:"-"`
	RoomToken           string                   `json:"room_token"`
	State               negotiation.State        `json:"state"`
	ClosedReason        negotiation.ClosedReason `json:"closed_reason,omitempty"`
	Round               int                      `json:"round"`
	Turn                *string                  `json:"turn"`
	Deadline            string                   `json:"deadline"`
	Title               string                   `json:"title,omitempty"`
	PendingConfirmation bool                     `json:"pending_confirmation"`
}

// MaxListTokens bounds negotiation_list by tokens.
const MaxListTokens = 20

// ListPage is how many rooms a list without tokens returns at once.
const ListPage = 50

// List is negotiation_list: the rooms whose tokens are given (each must be
// the caller's), or the agent's rooms newest first, a page at a time (keyset
// on the room id, served by parties_account_room). One query either way:
// a summary needs only the room's columns, not the room restored.
func (s *Rooms) List(ctx context.Context, agent Agent, tokens []string, cursor string) ([]Summary, string, error) {
	if len(tokens) > MaxListTokens {
		return nil, "", Errorf(ErrInvalid, "room_tokens: at most %d", MaxListTokens)
	}
	var rows []summaryRow
	var err error
	next := ""
	if len(tokens) > 0 {
		hashes := make([][]byte, len(tokens))
		for i, t := range tokens {
			hashes[i] = secretHash(t)
		}
		if rows, err = selectSummaries(ctx, s.pool, `p.account_id = $1 AND p.token_hash = ANY($2)`, agent.AccountID, hashes); err != nil {
			return nil, "", err
		}
		found := map[string]bool{}
		for _, r := range rows {
			found[string(r.tokenHash)] = true
		}
		for i, h := range hashes {
			if !found[string(h)] {
				return nil, "", Errorf(ErrNotFound, "room_tokens[%d]: no room of yours has this token", i)
			}
		}
	} else {
		before := int64(1<<63 - 1)
		if cursor != "" {
			c, err := strconv.ParseInt(cursor, 10, 64)
			if err != nil || c <= 0 {
				return nil, "", Errorf(ErrInvalid, "cursor: not one this list gave")
			}
			before = c
		}
		if rows, err = selectSummaries(ctx, s.pool, `p.account_id = $1 AND p.agent_id = $2 AND p.room_id < $3
			ORDER BY p.room_id DESC LIMIT $4`, agent.AccountID, agent.ID, before, ListPage+1); err != nil {
			return nil, "", err
		}
		if len(rows) > ListPage {
			rows = rows[:ListPage]
			next = strconv.FormatInt(rows[ListPage-1].Summary.RoomID, 10)
		}
	}
	out := make([]Summary, len(rows))
	for i, r := range rows {
		out[i] = r.Summary
		out[i].RoomToken = s.roomToken(r.RoomID, string(r.side), r.salt)
		if r.Turn != nil {
			t := whose(r.side, negotiation.Side(*r.Turn))
			out[i].Turn = &t
		}
	}
	return out, next, nil
}
