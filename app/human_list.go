package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// Rank is a room's place in a human's list, most urgent first. It is kept
// per party (migrations/00004) so that the list is one indexed keyset scan.
type Rank int

const (
	RankWaitingForYou Rank = 1 // the party's human is asked to confirm
	RankYourTurn      Rank = 2 // the party's agent may move
	RankTheirTurn     Rank = 3 // the other side moves (or has yet to join)
	RankAgreed        Rank = 4
	RankClosed        Rank = 5
)

// RoomFilter narrows a human's list to a range of ranks.
type RoomFilter string

const (
	FilterAll     RoomFilter = ""        // every room
	FilterWaiting RoomFilter = "waiting" // waiting for a human of mine
	FilterLive    RoomFilter = "live"    // not yet agreed or closed
	FilterAgreed  RoomFilter = "agreed"
	FilterClosed  RoomFilter = "closed"
)

func (f RoomFilter) ranks() (Rank, Rank, error) {
	switch f {
	case FilterAll:
		return RankWaitingForYou, RankClosed, nil
	case FilterWaiting:
		return RankWaitingForYou, RankWaitingForYou, nil
	case FilterLive:
		return RankWaitingForYou, RankTheirTurn, nil
	case FilterAgreed:
		return RankAgreed, RankAgreed, nil
	case FilterClosed:
		return RankClosed, RankClosed, nil
	}
	return 0, 0, refuse(ErrInvalid, "error.state_filter", "state: must be one of waiting, live, agreed, closed, or empty for all (got %q)", string(f))
}

// HumanSummary is one room in a human's list: one seat of one of their
// accounts (a room between two of their accounts is listed twice).
type HumanSummary struct {
	RoomID       int64
	Side         negotiation.Side
	Rank         Rank
	AccountSlug  string
	AccountName  string
	Title        string
	State        negotiation.State
	ClosedReason negotiation.ClosedReason
	Round        int
	Turn         string // "you", "them" or ""
	Deadline     time.Time
	// InvitationExpires is when a room nobody joined closes as expired,
	// when that comes before the deadline (View.InvitationExpires).
	InvitationExpires *time.Time
	UpdatedAt         time.Time
	OwnerIsYou        bool // the human who confirms for this seat is the viewer
}

// HumanPageSize is how many rooms a list page holds.
const HumanPageSize = 50

// ListForHuman lists the rooms userID may see (access.go: every room of
// the accounts they own or administer, their own agents' elsewhere), most
// urgent first (waiting for a human, the agent's turn, theirs, agreed,
// closed; live rooms by nearest deadline, final ones latest first), from
// cursor on. It returns the cursor of the next page, "" at the end.
func (s *Rooms) ListForHuman(ctx context.Context, userID int64, filter RoomFilter, cursor string) ([]HumanSummary, string, error) {
	lo, hi, err := filter.ranks()
	if err != nil {
		return nil, "", err
	}
	after, err := parseListCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	sc, err := scopeOf(ctx, s.pool, userID)
	if err != nil {
		return nil, "", fmt.Errorf("list rooms for human: %w", err)
	}
	out, keys, err := selectHumanSummaries(ctx, s.pool, userID, sc, lo, hi, after, HumanPageSize+1)
	if err != nil {
		return nil, "", fmt.Errorf("list rooms for human: %w", err)
	}
	for i := range out {
		if h := &out[i]; h.Turn != "" {
			h.Turn = whose(h.Side, negotiation.Side(h.Turn))
		}
	}
	next := ""
	if len(out) > HumanPageSize {
		out = out[:HumanPageSize]
		next = keys[HumanPageSize-1].String()
	}
	return out, next, nil
}

// CountWaiting counts the rooms of userID's accounts waiting for a human.
func (s *Rooms) CountWaiting(ctx context.Context, userID int64) (int, error) {
	sc, err := scopeOf(ctx, s.pool, userID)
	if err != nil {
		return 0, fmt.Errorf("count waiting rooms: %w", err)
	}
	n, err := countWaiting(ctx, s.pool, userID, sc)
	if err != nil {
		return 0, fmt.Errorf("count waiting rooms: %w", err)
	}
	return n, nil
}

// listCursor is the last row of a page: (rank, rank_key, room, side).
type listCursor struct {
	rank int
	key  int64
	room int64
	side string
}

func (c listCursor) String() string {
	return fmt.Sprintf("%d.%d.%d.%s", c.rank, c.key, c.room, c.side)
}

func parseListCursor(s string) (listCursor, error) {
	if s == "" {
		return listCursor{side: ""}, nil // before every row: (0, 0, 0, '')
	}
	bad := refuse(ErrInvalid, "error.cursor_list", "cursor: not one this list gave (start again from the first page)")
	parts := strings.Split(s, ".")
	if len(parts) != 4 || (parts[3] != "a" && parts[3] != "b") {
		return listCursor{}, bad
	}
	var c listCursor
	var err1, err2, err3 error
	c.rank, err1 = strconv.Atoi(parts[0])
	c.key, err2 = strconv.ParseInt(parts[1], 10, 64)
	c.room, err3 = strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || c.rank < 1 || c.rank > 5 || c.room < 1 {
		return listCursor{}, bad
	}
	c.side = parts[3]
	return c, nil
}
