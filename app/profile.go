package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// DeleteProfile erases a person who belongs to no account: their user row
// with their settings, push devices and delivery log; the seats they once
// answered for (in accounts they left) keep no trace of them, nor the rooms
// they answered in the browser by their address (forgetAddresses); every
// session ends with the row. typed must be their address: the form
// repeats it. A member of an account is refused, naming it: leaving it,
// or deleting it, comes first (an account's owners answer for the seats
// its members leave).
func (a *Accounts) DeleteProfile(ctx context.Context, userID int64, typed string) error {
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		// Their address first, before any row (store_profile.go): an
		// answer or an open writing it meanwhile is waited for, and then
		// forgotten, or waits for the erasure.
		email, err := selectUserEmail(ctx, tx, userID)
		if err == nil {
			err = lockAddresses(ctx, tx, []string{email})
		}
		if err == nil {
			email, err = lockUser(ctx, tx, userID) // nobody changes an address: the same
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return refuse(ErrNotFound, "error.profile_gone", "profile: there is no such person (deleted already?)")
		} else if err != nil {
			return err
		}
		if !strings.EqualFold(strings.TrimSpace(typed), email) {
			return refuse(ErrInvalid, "error.profile_confirm", "confirm: type your address, %s, to delete your profile", email)
		}
		ms, err := selectMemberships(ctx, tx, userID)
		if err != nil {
			return err
		}
		if len(ms) > 0 {
			names := make([]string, len(ms))
			for i, m := range ms {
				names[i] = m.AccountSlug
			}
			return refuse(ErrConflict, "error.profile_member", "profile: you are a member of %s; leave it, or delete it, first", strings.Join(names, ", "))
		}
		if err := deleteUser(ctx, tx, userID); err != nil {
			return err
		}
		return forgetAddresses(ctx, tx, []string{email})
	})
	if err != nil {
		return fmt.Errorf("delete profile: %w", err)
	}
	return nil
}
