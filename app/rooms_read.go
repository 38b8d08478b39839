package app

import (
	"context"
	"strconv"
	"time"

	"github.com/taasky/taasky/internal/gencache"
	"github.com/taasky/taasky/negotiation"
)

// Read is negotiation_read: the side's full view. It changes nothing.
//
// Agents read before every move, and mostly find the room as it was: the
// views read last are kept by room token (Rooms.views), and one statement
// (selectSeatUnless) checks that the room is still at the kept view's seq,
// that the token is a seat of the caller's human in its account, and the
// human's context, and leaves the snapshot and the log out when the kept
// view still holds. The view returned is shared: callers must not change
// it.
func (s *Rooms) Read(ctx context.Context, agent Agent, roomToken string) (*View, error) {
	if roomToken == "" {
		return nil, Errorf(ErrInvalid, "room_token: required")
	}
	seat := s.seatHashOf(roomToken)
	hash := seat.token
	kept, ok := s.views.Get(string(hash))
	known := -1
	if ok {
		known = kept.seq
	}
	// One statement reads everything the view needs: it sees one snapshot
	// without a transaction around it.
	row, side, err := selectSeatUnless(ctx, s.pool, seat, agent.AccountID, agent.OwnerUserID, known)
	if err != nil {
		return nil, err
	}
	if row.skipped {
		if kept.holds(row.human, s.clock(row)) && kept.undelivered == row.undeliveredKey() {
			return kept.view, nil
		}
		// The human's context changed (their time zone or language, or
		// their account saw the other side's schema), or a refused mail was
		// noted since (rooms.undelivered, written with no move): read the
		// room again.
		if row, side, err = selectSeat(ctx, s.pool, seat, agent.AccountID, agent.OwnerUserID, false); err != nil {
			return nil, err
		}
	}
	ld, err := s.restoreFor(row, side)
	if err != nil {
		return nil, err
	}
	v, err := s.view(ctx, s.pool, ld, side)
	if err != nil {
		return nil, err
	}
	if h := row.human; h != nil {
		s.views.Put(string(hash), &keptView{seq: row.Seq, zone: h.zone, lang: h.lang, seen: h.seen, undelivered: row.undeliveredKey(), view: v})
	}
	return v, nil
}

// ReadHistory is Read with every round's terms (View.Elided false): the
// room's whole history, read whole each time (it is not kept). Read
// leaves out the terms of the offers and counters before the room's
// latest move, which a long log of terms of the largest size makes
// megabytes a read.
func (s *Rooms) ReadHistory(ctx context.Context, agent Agent, roomToken string) (*View, error) {
	if roomToken == "" {
		return nil, Errorf(ErrInvalid, "room_token: required")
	}
	row, side, err := selectSeatWhole(ctx, s.pool, s.seatHashOf(roomToken), agent.AccountID, agent.OwnerUserID)
	if err != nil {
		return nil, err
	}
	ld, err := s.restoreFor(row, side)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, s.pool, ld, side)
}

// keptView is a view Read returned, with what it was built from besides
// the room at seq.
type keptView struct {
	seq  int
	zone *string
	lang string
	seen bool
	// undelivered is what the room's row said of its refused mail
	// (roomRow.undeliveredKey): a refusal noted since changes the view
	// with no move.
	undelivered string
	view        *View
}

// holds reports whether the kept view is still the view for a seat whose
// human's context is h, at now.
func (k *keptView) holds(h *humanRow, now time.Time) bool {
	sameZone := (k.zone == nil) == (h.zone == nil) && (k.zone == nil || *k.zone == *h.zone)
	return sameZone && k.lang == h.lang && k.seen == h.seen && (k.view.changesAt.IsZero() || now.Before(k.view.changesAt))
}

// undeliveredKey is what the room's row says of its refused mail, as
// one string (rooms.undelivered and the address invited).
func (r *roomRow) undeliveredKey() string {
	if r.Undelivered == nil {
		return ""
	}
	to := ""
	if r.InviteEmail != nil {
		to = *r.InviteEmail
	}
	return string(r.Undelivered) + "\x00" + to
}

// viewsKept is how many views a generation of Rooms.views holds: about
// 6 KB each with MCP's rendering, so about 50 MB for both; viewsBytes
// bounds what they hold whatever their size: a view of three options of
// the largest terms (negotiation.MaxTermsBytes), with their card and
// rendering, is some 2 MB, and 8,192 of them were 16 GB.
const (
	viewsKept  = 4096
	viewsBytes = 32 << 20
)

func newViewCache() *gencache.Cache[string, *keptView] {
	return gencache.NewBudget(viewsKept, viewsBytes, func(_ string, k *keptView) int { return k.view.size() })
}

// size is roughly the bytes v holds, for the bound of the views kept: its
// terms three times (as read, on the card, in the rendering) and 6 KB.
func (v *View) size() int {
	n := 0
	for _, r := range v.Rounds {
		for _, o := range r.Terms {
			n += len(o.Terms)
		}
	}
	if v.TermsOnTable != nil {
		for _, o := range v.TermsOnTable.Options {
			n += len(o.Terms)
		}
	}
	return 3*n + 6<<10
}

// Summary is one room in a list.
type Summary struct {
	RoomID       int64                    `json:"-"`
	RoomToken    string                   `json:"room_token"`
	State        negotiation.State        `json:"state"`
	ClosedReason negotiation.ClosedReason `json:"closed_reason,omitempty"`
	Round        int                      `json:"round"`
	Turn         *string                  `json:"turn,omitempty"` // "you" or "them"; nil: nobody's
	Deadline     string                   `json:"deadline"`
	// InvitationExpires is when the room closes as expired if nobody has
	// joined it by then (View.InvitationExpiresAt); only while a draft.
	InvitationExpires   string `json:"invitation_expires,omitempty"`
	Title               string `json:"title,omitempty"`
	PendingConfirmation bool   `json:"pending_confirmation"`
}

// MaxListTokens bounds negotiation_list by tokens.
const MaxListTokens = 20

// ListPage is how many entries a list without tokens returns at once (one
// more when the last room is one the agent sits in on both sides).
const ListPage = 50

// List is negotiation_list: the rooms whose tokens are given (each must be
// the caller's), or the agent's rooms newest first, a page at a time (keyset
// on the room id, served by parties_agent_newest). One query either way:
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
		var prevs [][]byte // during a rotation: the tokens from before re-keyed seats' (seatHash)
		for i, t := range tokens {
			h := s.seatHashOf(t)
			hashes[i] = h.token
			if h.prev != nil {
				prevs = append(prevs, h.prev)
			}
		}
		if rows, err = selectSummariesByTokens(ctx, s.pool, agent.AccountID, agent.OwnerUserID, hashes, prevs); err != nil {
			return nil, "", err
		}
		found := map[string]bool{}
		for _, r := range rows {
			found[string(r.tokenHash)] = true
			if r.tokenBefore != nil { // during a rotation, a seat's token from before it
				found[string(r.tokenBefore)] = true
			}
		}
		for i, h := range hashes {
			if !found[string(h)] && (prevs == nil || !found[string(prevs[i])]) {
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
		// An agent sits on both sides of a room it joined itself: two
		// entries of one room. The cursor is a room id, so a page never
		// ends between them (it then holds ListPage+1 entries).
		if rows, err = selectSummariesByAgent(ctx, s.pool, agent.AccountID, agent.ID, before, ListPage+2); err != nil {
			return nil, "", err
		}
		if len(rows) > ListPage {
			end := ListPage
			if rows[end].RoomID == rows[end-1].RoomID {
				end++
			}
			if len(rows) > end {
				next = strconv.FormatInt(rows[end-1].Summary.RoomID, 10)
			}
			rows = rows[:end]
		}
	}
	out := make([]Summary, len(rows))
	for i, r := range rows {
		out[i] = r.Summary
		out[i].RoomToken = s.seatToken(r.RoomID, string(r.side), r.salt, r.tokenHash)
		if r.Turn != nil {
			t := whose(r.side, negotiation.Side(*r.Turn))
			out[i].Turn = &t
		}
	}
	return out, next, nil
}
