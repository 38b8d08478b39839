package app

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// TestListForHumanRanksAndPages: a human's list puts the rooms waiting for
// a human first, then the agent's turn, theirs, agreed, closed; it pages
// by keyset without gaps or repeats, filters by rank, refuses a bad cursor
// or filter, and the index serves it.
func TestListForHumanRanksAndPages(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	// r1: b's human is asked to approve a's offer.
	ta1, tb1 := rb.openJoined(t, OpenInput{Title: "asked"}, "")
	v, err := rb.rooms.Propose(rb.ctx, rb.a, ta1, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb1, "approve", v.TermsOnTable.Options[0].SubjectHash); err != nil {
		t.Fatal(err)
	}
	r1 := v.RoomID
	// r2: joined, nothing tabled: a's turn.
	ta2, _ := rb.openJoined(t, OpenInput{Title: "a to offer"}, "")
	// r3: closed by a's human.
	ta3, _ := rb.openJoined(t, OpenInput{Title: "closed"}, "")
	cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, ta3, "cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	rb.confirm(t, rb.a, ta3, cv)

	ids := func(list []HumanSummary) (out []int64) {
		for _, h := range list {
			out = append(out, h.RoomID)
		}
		return out
	}
	beta, _, err := rb.rooms.ListForHuman(rb.ctx, rb.b.OwnerUserID, FilterAll, "")
	if err != nil || len(beta) != 3 || beta[0].RoomID != r1 || beta[0].Rank != RankWaitingForYou || !beta[0].OwnerIsYou || beta[0].Title != "asked" {
		t.Fatalf("beta's list: %v %+v", err, beta)
	}
	alpha, _, err := rb.rooms.ListForHuman(rb.ctx, rb.a.OwnerUserID, FilterAll, "")
	if err != nil {
		t.Fatal(err)
	}
	ranks := []Rank{}
	for _, h := range alpha {
		ranks = append(ranks, h.Rank)
	}
	if len(alpha) != 3 || alpha[0].Title != "a to offer" || ranks[0] != RankYourTurn || ranks[1] != RankTheirTurn || ranks[2] != RankClosed || alpha[0].Turn != "you" {
		t.Fatalf("alpha's list: ranks %v, %+v", ranks, alpha)
	}
	_ = ta2
	closed, _, err := rb.rooms.ListForHuman(rb.ctx, rb.a.OwnerUserID, FilterClosed, "")
	if err != nil || len(closed) != 1 || closed[0].State != negotiation.StateClosed {
		t.Fatalf("closed filter: %v %+v", err, closed)
	}
	if n, err := rb.rooms.CountWaiting(rb.ctx, rb.b.OwnerUserID); err != nil || n != 1 {
		t.Fatalf("waiting for beta: %d %v", n, err)
	}

	for range HumanPageSize + 3 {
		if _, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema}); err != nil {
			t.Fatal(err)
		}
	}
	page1, next, err := rb.rooms.ListForHuman(rb.ctx, rb.a.OwnerUserID, FilterLive, "")
	if err != nil || len(page1) != HumanPageSize || next == "" {
		t.Fatalf("page 1: %v, %d rooms, next %q", err, len(page1), next)
	}
	page2, next2, err := rb.rooms.ListForHuman(rb.ctx, rb.a.OwnerUserID, FilterLive, next)
	if err != nil || len(page2) != 5 || next2 != "" {
		t.Fatalf("page 2: %v, %d rooms, next %q", err, len(page2), next2)
	}
	seen := map[int64]bool{}
	for _, id := range append(ids(page1), ids(page2)...) {
		if seen[id] {
			t.Fatalf("room %d listed twice", id)
		}
		seen[id] = true
	}
	if _, _, err := rb.rooms.ListForHuman(rb.ctx, rb.a.OwnerUserID, "everything", ""); ErrorCodeOf(err) != ErrInvalid {
		t.Fatalf("bad filter: %v", err)
	}
	if _, _, err := rb.rooms.ListForHuman(rb.ctx, rb.a.OwnerUserID, "", "9.x.1.a"); ErrorCodeOf(err) != ErrInvalid {
		t.Fatalf("bad cursor: %v", err)
	}

	// The list is an index range scan per account (forced here: the
	// table is too small for the planner to bother).
	err = pgx.BeginFunc(rb.ctx, rb.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(rb.ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			return err
		}
		// As the server runs (cmd/taasky's pool): the plan made once for any account.
		if _, err := tx.Exec(rb.ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
			return err
		}
		rows, err := tx.Query(rb.ctx, `EXPLAIN SELECT room_id FROM party_ranks WHERE account_id = $1 AND rank BETWEEN 1 AND 5
			AND (rank, rank_key, room_id, side) > (0, 0, 0, '') ORDER BY rank, rank_key, room_id, side LIMIT 51`, rb.a.AccountID)
		if err != nil {
			return err
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, l := range lines {
			if strings.Contains(l, "party_ranks_account") {
				return nil
			}
		}
		t.Errorf("the list does not use party_ranks_account:\n%v", lines)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rb.checkClean(t)
}
