package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// Deleting an account (DeleteAccount). Its owner types the account's slug
// to confirm. Then, in this order:
//
//  1. at once, in one transaction: every key of its agents is revoked and
//     its OAuth grants' tokens deleted (this process forgets the keys now,
//     the others when they hear of it on taasky_agent_key), every session
//     of its members ends (except the deleting person's own), its seats
//     become nobody's and its webhook endpoints are disabled, so that
//     nothing below is sent to its people or its endpoints;
//  2. every open room it sits in closes with the reason account_deleted,
//     each by the protocol and committed as any close is: the other side
//     gets the normal closed notice;
//  3. in one transaction, with the account and its agents locked (a move
//     that got in between is closed first): its side of every room is
//     erased (human, agent, room token, sealed limits, notes, its members'
//     delivery log about its rooms) while the rooms, their logs and the
//     other side's party stay whole; then the account (memberships,
//     agents, keys, grants, invitations, audit log, seen schemas) and the
//     members who belong to no other account (their settings, push
//     subscriptions and delivery log).
//
// The deletion cannot be written to the account's audit log, which goes
// with it: it is logged (slog, info) with ids and counts only.

// DeletedAccount is what deleting an account did.
type DeletedAccount struct {
	Slug        string
	Name        string
	RoomsClosed int
	KeysRevoked int
	UsersErased int
	// ActorErased: the person who deleted it belonged to no other account
	// and was erased with it.
	ActorErased bool
}

// DeleteAccount deletes the account with slug; only its owners may, and
// typed must be the slug.
func (s *Rooms) DeleteAccount(ctx context.Context, actorID int64, slug, typed string) (DeletedAccount, error) {
	return s.deleteAccount(ctx, actorID, slug, typed, false)
}

// DeleteAccountAsOperator is DeleteAccount for an operator on the command
// line (`taasky account delete`).
func (s *Rooms) DeleteAccountAsOperator(ctx context.Context, slug, typed string) (DeletedAccount, error) {
	return s.deleteAccount(ctx, 0, slug, typed, true)
}

// deleteRetries is how many times the last step closes rooms that a move
// opened while the first ones ran before it gives up (the deletion can be
// asked again: each step is safe to repeat).
const deleteRetries = 5

func (s *Rooms) deleteAccount(ctx context.Context, actorID int64, slug, typed string, operator bool) (DeletedAccount, error) {
	out := DeletedAccount{Slug: slug}
	var accountID int64
	var keys [][]byte
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		accountID, out.Name, err = authorizeDeletion(ctx, tx, actorID, slug, operator)
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
		if keys, err = revokeAccountAccess(ctx, tx, accountID, now); err != nil {
			return err
		}
		ids, err := selectMemberIDs(ctx, tx, accountID)
		if err != nil {
			return err
		}
		others := slices.DeleteFunc(ids, func(id int64) bool { return id == actorID })
		if err := bumpSessionEpochs(ctx, tx, others); err != nil {
			return err
		}
		if err := disableAccountHooks(ctx, tx, accountID, now); err != nil {
			return err
		}
		return unseatAccountHumans(ctx, tx, accountID, now)
	})
	if err != nil {
		return DeletedAccount{}, fmt.Errorf("delete account: %w", err)
	}
	out.KeysRevoked = len(keys)
	s.forgetKeys(keys)
	var erased []int64
	for try := 0; ; try++ {
		n, err := s.closeAccountRooms(ctx, accountID)
		out.RoomsClosed += n
		if err != nil {
			return out, fmt.Errorf("delete account: close its rooms: %w", err)
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
		if (errors.Is(err, errRoomsStillOpen) || errors.Is(err, errMembersChanged)) && try < deleteRetries {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("delete account: erase it: %w", err)
		}
		// The other side's pages now name "a deleted account".
		rooms := make([]int64, len(seats))
		for i, st := range seats {
			rooms[i] = st.roomID
		}
		s.announcer.add(rooms)
		break
	}
	out.UsersErased = len(erased)
	out.ActorErased = slices.Contains(erased, actorID)
	actor := "owner"
	if operator {
		actor = "operator"
	}
	s.log.Info("account deleted", "account_id", accountID, "by", actor, "rooms_closed", out.RoomsClosed,
		"keys_revoked", out.KeysRevoked, "users_erased", out.UsersErased)
	return out, nil
}

var (
	errRoomsStillOpen = errors.New("a room of the account is still open")
	errMembersChanged = errors.New("a member joined while the deletion locked the members' addresses")
)

// authorizeDeletion checks that actorID is an owner of the account with
// slug (or that an operator asks), and returns the account's id and name.
func authorizeDeletion(ctx context.Context, q querier, actorID int64, slug string, operator bool) (int64, string, error) {
	if operator {
		acct, err := selectAccountBySlug(ctx, q, slug)
		return acct.ID, acct.Name, err
	}
	m, err := selectMembership(ctx, q, actorID, slug)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", refuse(ErrNotFound, "error.not_member", "account: you are not a member of %q", slug)
	} else if err != nil {
		return 0, "", err
	}
	if !May(m.Role, ActDeleteAccount, Colleagues) {
		return 0, "", refuse(ErrUnauthorized, "error.delete_who", "account: only the account's owners delete it")
	}
	return m.AccountID, m.AccountName, nil
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
	seats, err := selectAccountSeats(ctx, s.pool, accountID)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, st := range seats {
		closed, err := s.closeForDeletedAccount(ctx, st.roomID)
		if closed {
			n++
		}
		errs = append(errs, err)
	}
	return n, errors.Join(errs...)
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
		next, ev, err := ld.room.CloseAccountDeleted(s.now())
		if err != nil {
			return err
		}
		closed = true
		return s.commit(ctx, tx, ld, change{next: next, events: []negotiation.Event{ev}})
	})
	return closed && err == nil, err
}
