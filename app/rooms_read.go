package app

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// Read is negotiation_read: the side's full view. It changes nothing.
func (s *Rooms) Read(ctx context.Context, agent Agent, roomToken string) (*View, error) {
	if roomToken == "" {
		return nil, Errorf(ErrInvalid, "room_token: required")
	}
	var v *View
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		row, side, err := selectSeat(ctx, tx, secretHash(roomToken), agent.AccountID, false)
		if err != nil {
			return err
		}
		ld, err := s.restore(row)
		if err != nil {
			return err
		}
		v, err = s.view(ctx, tx, ld, side)
		return err
	})
	return v, err
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
// the caller's), or the agent's rooms newest first, a page at a time.
func (s *Rooms) List(ctx context.Context, agent Agent, tokens []string, cursor string) ([]Summary, string, error) {
	if len(tokens) > MaxListTokens {
		return nil, "", Errorf(ErrInvalid, "room_tokens: at most %d", MaxListTokens)
	}
	var out []Summary
	next := ""
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		type seatRef struct {
			room int64
			side negotiation.Side
		}
		var seats []seatRef
		if len(tokens) > 0 {
			for i, t := range tokens {
				id, side, err := seatByToken(ctx, tx, secretHash(t), agent.AccountID)
				if err != nil {
					return Errorf(ErrNotFound, "room_tokens[%d]: no room of yours has this token", i)
				}
				seats = append(seats, seatRef{id, side})
			}
		} else {
			before := int64(1<<63 - 1)
			if cursor != "" {
				c, err := strconv.ParseInt(cursor, 10, 64)
				if err != nil || c <= 0 {
					return Errorf(ErrInvalid, "cursor: not one this list gave")
				}
				before = c
			}
			rows, err := tx.Query(ctx, `SELECT room_id, side FROM parties
				WHERE account_id = $1 AND agent_id = $2 AND room_id < $3 ORDER BY room_id DESC LIMIT $4`,
				agent.AccountID, agent.ID, before, ListPage+1)
			if err != nil {
				return fmt.Errorf("list rooms: %w", err)
			}
			for rows.Next() {
				var sr seatRef
				if err := rows.Scan(&sr.room, &sr.side); err != nil {
					return err
				}
				seats = append(seats, sr)
			}
			if err := rows.Err(); err != nil {
				return err
			}
			if len(seats) > ListPage {
				seats = seats[:ListPage]
				next = strconv.FormatInt(seats[ListPage-1].room, 10)
			}
		}
		for _, st := range seats {
			ld, err := s.load(ctx, tx, st.room, false)
			if err != nil {
				return err
			}
			r := ld.room
			sum := Summary{RoomID: st.room, RoomToken: s.roomToken(st.room, string(st.side), ld.row.party(st.side).TokenSalt), State: r.State, ClosedReason: r.ClosedReason, Round: r.Round,
				Deadline: r.Deadline.UTC().Format(timeLayout), PendingConfirmation: r.PendingFor(st.side) != nil}
			if r.Turn != "" {
				t := whose(st.side, r.Turn)
				sum.Turn = &t
			}
			if ld.row.Title != nil {
				sum.Title = *ld.row.Title
			}
			out = append(out, sum)
		}
		return nil
	})
	return out, next, err
}
