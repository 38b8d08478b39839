package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// Deleting an account (DeleteAccount). Its owner types the account's slug
// to confirm. The request commits, in one transaction, that the account is
// being deleted, and returns; a River job (jobs.AccountDeleteArgs, inserted
// in that transaction) does the rest, in bounded batches:
//
//  1. the request, at once: the account is marked deleting (accounts.
//     deleting_at: its members' memberships no longer give them anything
//     of it, they are told it is being deleted, and nothing new can be
//     done or opened in it); every key of its agents is revoked and its
//     OAuth grants' tokens deleted (this process forgets the keys now, the
//     others when they hear of it on taasky_agent_key), its invitations
//     waiting to be accepted are revoked, every session of its members
//     ends (except the deleting person's own), its seats become nobody's
//     (the one-tap links sent to them stop working) and its webhook
//     endpoints are disabled, so that nothing below is sent to its people
//     or its endpoints;
//  2. the job: every open room it sits in closes with the reason
//     account_deleted, each by the protocol and committed as any close is:
//     the other side gets the normal closed notice; a batch of
//     deleteBatch rooms at a time, until the job's budget is spent (then
//     the job snoozes and goes on where the rooms say: it keeps no cursor);
//  3. the job, in one transaction, with the account and its agents locked
//     (a move that got in between is closed first): its side of every room
//     is erased (human, agent, room token, sealed limits, notes, its
//     members' delivery log about its rooms) while the rooms, their logs
//     and the other side's party stay whole; then the account
//     (memberships, agents, keys, grants, invitations, audit log, seen
//     schemas) and the members who belong to no other account (their
//     settings, push subscriptions and delivery log).
//
// Each step is safe to run twice, late, or cut short: a second deletion
// finds the account deleting and only makes sure its job is queued; a job
// killed halfway leaves rooms closed or open, each whole, and the next run
// closes the rest; a job for an account already gone does nothing.
//
// The deletion cannot be written to the account's audit log, which goes
// with it: it is logged (slog, info) with ids and counts only.

// DeletedAccount is what deleting an account did.
type DeletedAccount struct {
	AccountID int64
	Slug      string
	Name      string
	// Pending: the account is being deleted; its job closes its rooms and
	// erases it (RoomsClosed and UsersErased count what this call did).
	Pending bool
	// Again: the account was being deleted already (a second deletion:
	// nothing changed but that its job is queued).
	Again       bool
	RoomsClosed int
	KeysRevoked int
	UsersErased int
	// ActorErased: the person who deleted it belongs to no other account
	// and is (or, while Pending, will be) erased with it.
	ActorErased bool
}

// DeleteAccount starts deleting the account with slug; only its owners
// may, and typed must be the slug. It returns once the deletion is
// committed; the account's job (FinishAccountDeletion) does the rest.
func (s *Rooms) DeleteAccount(ctx context.Context, actorID int64, slug, typed string) (DeletedAccount, error) {
	out, _, err := s.beginDeletionID(ctx, actorID, slug, typed, false)
	return out, err
}

// DeleteAccountAsOperator is DeleteAccount for an operator on the command
// line (`taasky account delete`), who waits: it starts the deletion as
// the owner's does, then runs the job's steps here, to the end (the job it
// queued finds nothing left to do, or finishes what a killed command left).
func (s *Rooms) DeleteAccountAsOperator(ctx context.Context, slug, typed string) (DeletedAccount, error) {
	out, accountID, err := s.beginDeletionID(ctx, 0, slug, typed, true)
	if err != nil {
		return out, err
	}
	for range 10 {
		done, err := s.finishDeletion(ctx, accountID, time.Now().Add(time.Hour), &out)
		if err != nil || done {
			out.Pending = !done
			return out, err
		}
	}
	return out, nil // Pending: its job goes on
}

// deleteRetries is how many times the last step closes rooms that a move
// opened while the first ones ran before it lets the job's next run try
// (each step is safe to repeat).
const deleteRetries = 5

// deleteBatch is how many open rooms the job reads at a time to close.
const deleteBatch = 200

func (s *Rooms) beginDeletionID(ctx context.Context, actorID int64, slug, typed string, operator bool) (DeletedAccount, int64, error) {
	out := DeletedAccount{Slug: slug, Pending: true}
	var accountID int64
	var keys [][]byte
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		var deleting bool
		accountID, out.Name, deleting, err = authorizeDeletion(ctx, tx, actorID, slug, operator)
		if err != nil {
			return err
		}
		if typed != slug {
			return refuse(ErrInvalid, "error.delete_confirm", "confirm: type the account's slug, %s, exactly as it is written, to delete the account", slug)
		}
		if err := lockAccountForDeletion(ctx, tx, accountID, false); err != nil {
			return err
		}
		now := s.now()
		if out.Again, err = markAccountDeleting(ctx, tx, accountID, now); err != nil {
			return err
		}
		out.Again = out.Again || deleting
		if !out.Again {
			if keys, err = revokeAccountAccess(ctx, tx, accountID, now); err != nil {
				return err
			}
			ids, err := selectMemberIDs(ctx, tx, accountID)
			if err != nil {
				return err
			}
			others := slices.DeleteFunc(ids, func(id int64) bool { return id == actorID })
			if err := deleteUsersSessions(ctx, tx, others); err != nil {
				return err
			}
			if err := disableAccountHooks(ctx, tx, accountID, now); err != nil {
				return err
			}
			if err := revokeAccountInvitations(ctx, tx, accountID, now); err != nil {
				return err
			}
			if err := unseatAccountHumans(ctx, tx, accountID, now); err != nil {
				return err
			}
		}
		if actorID != 0 {
			ms, err := selectMemberships(ctx, tx, actorID) // the accounts not being deleted
			if err != nil {
				return err
			}
			out.ActorErased = len(ms) == 0
		}
		// Unique by its arguments: a second deletion queues no second job
		// while the first is queued, running or done.
		if _, err := s.river.InsertTx(ctx, tx, jobs.AccountDeleteArgs{AccountID: accountID}, nil); err != nil {
			return fmt.Errorf("insert the deletion's job: %w", err)
		}
		return nil
	})
	if err != nil {
		return DeletedAccount{}, 0, fmt.Errorf("delete account: %w", err)
	}
	out.AccountID = accountID
	out.KeysRevoked = len(keys)
	s.forgetKeys(keys)
	actor := "owner"
	if operator {
		actor = "operator"
	}
	s.log.Info("account deletion started", "account_id", accountID, "by", actor, "again", out.Again, "keys_revoked", out.KeysRevoked)
	return out, accountID, nil
}

// FinishAccountDeletion is the deletion job's work (jobs.AccountDeleteArgs):
// it closes the open rooms of the account being deleted, a batch at a
// time, and once none is left erases it. It stops when until has passed
// and says whether the account is gone; an account not being deleted, or
// gone already, is done.
func (s *Rooms) FinishAccountDeletion(ctx context.Context, accountID int64, until time.Time) (bool, error) {
	var out DeletedAccount
	return s.finishDeletion(ctx, accountID, until, &out)
}

func (s *Rooms) finishDeletion(ctx context.Context, accountID int64, until time.Time, out *DeletedAccount) (bool, error) {
	deleting, err := accountDeleting(ctx, s.pool, accountID)
	if errors.Is(err, pgx.ErrNoRows) {
		return true, nil // erased already
	} else if err != nil {
		return false, fmt.Errorf("delete account: %w", err)
	} else if !deleting {
		s.log.Warn("a deletion job for an account not being deleted: nothing done", "account_id", accountID)
		return true, nil
	}
	var erased []int64
	for try := 0; try <= deleteRetries; try++ {
		for {
			if time.Now().After(until) {
				return false, nil
			}
			n, more, err := s.closeAccountRoomsBatch(ctx, accountID, deleteBatch)
			out.RoomsClosed += n
			if err != nil {
				return false, fmt.Errorf("delete account: close its rooms: %w", err)
			}
			if !more {
				break
			}
		}
		var seats []accountSeat
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			// The members' addresses first, before any row: an answer or
			// an open writing one meanwhile is waited for, and then
			// forgotten, or waits for the erasure (store_profile.go).
			locked, err := selectMemberEmails(ctx, tx, accountID)
			if err == nil {
				err = lockAddresses(ctx, tx, locked)
			}
			if err != nil {
				return err
			}
			if err := lockAccountForDeletion(ctx, tx, accountID, true); err != nil {
				return err
			}
			if _, err := accountDeleting(ctx, tx, accountID); err != nil {
				return err // pgx.ErrNoRows: another run erased it meanwhile
			}
			if seats, err = selectAccountSeats(ctx, tx, accountID); err != nil {
				return err
			}
			open, err := countOpenAccountRooms(ctx, tx, accountID)
			if err != nil {
				return err
			} else if open > 0 {
				return errRoomsStillOpen
			}
			ids, err := selectMemberIDs(ctx, tx, accountID)
			if err != nil {
				return err
			}
			var emails []string
			if erased, emails, err = eraseAccount(ctx, tx, accountID, ids); err != nil {
				return err
			}
			for _, e := range emails {
				if !slices.ContainsFunc(locked, func(l string) bool { return strings.EqualFold(l, e) }) {
					return errMembersChanged // joined before the account was locked
				}
			}
			return forgetAddresses(ctx, tx, emails)
		})
		if errors.Is(err, errRoomsStillOpen) || errors.Is(err, errMembersChanged) {
			continue
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("delete account: erase it: %w", err)
		}
		// The other side's pages now name "a deleted account".
		rooms := make([]int64, len(seats))
		for i, st := range seats {
			rooms[i] = st.roomID
		}
		s.announcer.add(rooms)
		out.UsersErased = len(erased)
		s.log.Info("account deleted", "account_id", accountID, "rooms_closed", out.RoomsClosed, "users_erased", out.UsersErased)
		return true, nil
	}
	return false, nil // the job's next run tries again
}

var (
	errRoomsStillOpen = errors.New("a room of the account is still open")
	errMembersChanged = errors.New("a member joined while the deletion locked the members' addresses")
)

// authorizeDeletion checks that actorID is an owner of the account with
// slug (or that an operator asks), and returns the account's id and name
// and whether it is being deleted already.
func authorizeDeletion(ctx context.Context, q querier, actorID int64, slug string, operator bool) (int64, string, bool, error) {
	if operator {
		acct, deleting, err := selectAccountForDeletion(ctx, q, slug)
		return acct.ID, acct.Name, deleting, err
	}
	m, deleting, err := selectMembershipForDeletion(ctx, q, actorID, slug)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", false, refuse(ErrNotFound, "error.not_member", "account: you are not a member of %q", slug)
	} else if err != nil {
		return 0, "", false, err
	}
	if !May(m.Role, ActDeleteAccount, Colleagues) {
		return 0, "", false, refuse(ErrUnauthorized, "error.delete_who", "account: only the account's owners delete it")
	}
	return m.AccountID, m.AccountName, deleting, nil
}

// forgetKeys makes this process forget the keys at once (the others forget
// them when they hear of the change on taasky_agent_key).
func (s *Rooms) forgetKeys(hashes [][]byte) {
	if s.keys == nil {
		return
	}
	for _, h := range hashes {
		s.keys.forgetHash(h)
	}
}

// closeAccountRooms closes the account's open rooms; it returns how many
// it closed.
func (s *Rooms) closeAccountRooms(ctx context.Context, accountID int64) (int, error) {
	total := 0
	for {
		n, more, err := s.closeAccountRoomsBatch(ctx, accountID, deleteBatch)
		total += n
		if err != nil || !more {
			return total, err
		}
	}
}

// closeAccountRoomsBatch closes at most limit of the account's open rooms,
// each in its own transaction; more: there may be others.
func (s *Rooms) closeAccountRoomsBatch(ctx context.Context, accountID int64, limit int) (n int, more bool, err error) {
	ids, err := selectOpenAccountRooms(ctx, s.pool, accountID, limit)
	if err != nil {
		return 0, false, err
	}
	for _, id := range ids {
		closed, err := s.closeForDeletedAccount(ctx, id)
		if err != nil {
			return n, false, err // the next run reads what is still open
		}
		if closed {
			n++
		}
	}
	return n, len(ids) == limit, nil
}

// closeForDeletedAccount closes the room if it is open.
func (s *Rooms) closeForDeletedAccount(ctx context.Context, roomID int64) (bool, error) {
	closed := false
	err := s.inTx(ctx, func(tx *roomTx) error {
		ld, err := s.loadLax(ctx, tx, roomID, true) // closing needs no limits
		if err != nil {
			return err
		}
		if ld.room.State.Terminal() {
			return nil
		}
		next, ev, err := ld.room.CloseAccountDeleted(s.clock(ld.row))
		if err != nil {
			return err
		}
		closed = true
		return s.commit(ctx, tx, ld, change{next: next, events: []negotiation.Event{ev}})
	})
	return closed && err == nil, err
}
