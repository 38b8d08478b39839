package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// hookMessage is one event for one endpoint: a webhook_messages row.
type hookMessage struct {
	accountID, endpointID int64
	id                    string // webhook-id
	event                 WebhookEvent
	roomID                int64
	side                  negotiation.Side
	seq                   int
	at                    time.Time
}

// sideEvent is an event told to one side's account.
type sideEvent struct {
	side  negotiation.Side
	event WebhookEvent
}

// hookEvents says which webhook events a change causes, and to which
// side: the open to the opener; the join, a move and the room's end to
// both; a confirmation asked or answered to its own side only (the other
// side's view never shows it).
func hookEvents(before, after *negotiation.Room, events []negotiation.Event) []sideEvent {
	both := []negotiation.Side{negotiation.SideA, negotiation.SideB}
	var out []sideEvent
	add := func(ev WebhookEvent, sides ...negotiation.Side) {
		for _, s := range sides {
			if se := (sideEvent{s, ev}); !slices.Contains(out, se) {
				out = append(out, se)
			}
		}
	}
	for _, ev := range events {
		switch ev.Kind {
		case negotiation.EventOpen:
			add(HookRoomOpened, negotiation.SideA)
		case negotiation.EventJoin:
			add(HookRoomJoined, both...)
		case negotiation.EventPropose:
			add(HookRoomMoved, both...)
		case negotiation.EventRequest:
			add(HookConfRequested, ev.Side)
		case negotiation.EventDecide:
			add(HookConfAnswered, ev.Side)
			if ev.Outcome == negotiation.ResultApplied && !after.State.Terminal() {
				add(HookRoomMoved, both...)
			}
		}
	}
	if !before.State.Terminal() {
		switch after.State {
		case negotiation.StateAgreed:
			add(HookRoomAgreed, both...)
		case negotiation.StateClosed:
			add(HookRoomClosed, both...)
		}
	}
	return out
}

// fanOutHooks writes, in the change's transaction, one message per event
// and endpoint that asked for it, to each side's own account, and inserts
// a job per message (one InsertManyTx); an account past its pace in this
// process (hookPace: jobs.WebhooksAtFullPriority) has its further jobs
// queued at jobs.PriorityBulk, behind every other account's, which River
// fetches first (no statement added: a bucket in memory per account). The messages' rows are folded into
// the room's UPDATE (folded). A rolled-back change sends nothing; a
// committed one never loses a webhook.
func (s *Rooms) fanOutHooks(ctx context.Context, tx pgx.Tx, folded *[]foldedWrite, ld *loaded, c change, now time.Time) error {
	evs := hookEvents(ld.room, c.next, c.events)
	if len(evs) == 0 {
		return nil
	}
	var accounts []int64
	accountOf := func(side negotiation.Side) int64 {
		if p := ld.row.party(side); p != nil && p.AccountID != nil {
			return *p.AccountID
		}
		return 0 // nobody yet, or a person answering in the browser
	}
	for _, side := range []negotiation.Side{negotiation.SideA, negotiation.SideB} {
		if a := accountOf(side); a != 0 {
			accounts = append(accounts, a)
		}
	}
	targets, err := ld.row.hookTargets(ctx, tx, accounts)
	if err != nil || len(targets) == 0 {
		return err
	}
	msgs, params := s.hookMessages(targets, evs, accountOf, ld.row.ID, ld.row.Seq, now)
	if len(msgs) == 0 {
		return nil
	}
	*folded = append(*folded, hookMessagesWrite(msgs))
	if _, err := s.river.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("insert webhook jobs: %w", err)
	}
	return nil
}

// hookMessages is a message for each event and each endpoint of the
// event's side's account (accountOf) that asked for it, about room roomID
// at seq, and the job that sends it; an account past its pace in this
// process has its further jobs at jobs.PriorityBulk (fanOutHooks).
func (s *Rooms) hookMessages(targets []hookTarget, evs []sideEvent, accountOf func(negotiation.Side) int64, roomID int64, seq int, now time.Time) ([]hookMessage, []river.InsertManyParams) {
	var msgs []hookMessage
	var params []river.InsertManyParams
	for _, se := range evs {
		acct := accountOf(se.side)
		for _, t := range targets {
			if t.accountID != acct || !slices.Contains(t.events, string(se.event)) {
				continue
			}
			m := hookMessage{accountID: acct, endpointID: t.endpointID, id: newHookMessageID(), event: se.event,
				roomID: roomID, side: se.side, seq: seq, at: now}
			msgs = append(msgs, m)
			p := river.InsertManyParams{Args: jobs.WebhookArgs{AccountID: acct, MessageID: m.id}}
			if ok, _ := s.hookPace.Take(acct); !ok {
				p.InsertOpts = &river.InsertOpts{Priority: jobs.PriorityBulk}
			}
			params = append(params, p)
		}
	}
	return msgs, params
}

// hookTargets are the enabled endpoints of the accounts: as read with the
// locked room when it read them for all of these accounts, else by a
// statement of their own (a join's new party, a room read unlocked).
func (r *roomRow) hookTargets(ctx context.Context, q querier, accounts []int64) ([]hookTarget, error) {
	for _, a := range accounts {
		if !slices.Contains(r.hooksOf, a) {
			return selectHookTargets(ctx, q, accounts)
		}
	}
	return r.hooks, nil
}

// newHookMessageID is a webhook-id: msg_ and 120 random bits, unique
// across databases and installations.
func newHookMessageID() string {
	return "msg_" + strings.ToLower(inviteEncoding.EncodeToString(randomBytes(15)))
}
