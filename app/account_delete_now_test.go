package app

import (
	"context"
	"time"
)

// DeleteAccountNow is DeleteAccount followed by its job's work, to the
// end, here: what a deletion did once its job has run (the tests that
// look at what deleting leaves). TestDeleteAccountInTheBackground runs the
// job by River.
func (s *Rooms) DeleteAccountNow(ctx context.Context, actorID int64, slug, typed string) (DeletedAccount, error) {
	out, accountID, err := s.beginDeletionID(ctx, actorID, slug, typed, false)
	if err != nil {
		return out, err
	}
	for range 20 {
		done, err := s.finishDeletion(ctx, accountID, time.Now().Add(time.Minute), &out)
		if err != nil || done {
			out.Pending = !done
			return out, err
		}
	}
	return out, nil
}
