package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// AccountDeleteArgs finishes deleting an account: its owner's request (or
// `taasky account delete`) marked it as being deleted and inserted this
// job in the same transaction; the job closes its open rooms (the other
// side is told, with the reason account_deleted) a batch at a time, and
// then erases it (app.Rooms.FinishAccountDeletion). Safe to run twice,
// late, or cut short: it goes on from what the rooms say, and an account
// already gone is done.
type AccountDeleteArgs struct {
	AccountID int64 `json:"account_id"`
}

// Kind is the job's name in River's tables.
func (AccountDeleteArgs) Kind() string { return "account_delete" }

// InsertOpts: one job per account (a second deletion queues none while
// the first is queued, running or done).
func (AccountDeleteArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// AccountDeleteBudget is how long one run of the job works before it
// snoozes (and is run again at once): within the River client's
// JobTimeout, so that a run is never cancelled for its length, and no
// worker is held for long by one account's 10,000 rooms.
const AccountDeleteBudget = 20 * time.Second

// AccountDeletions is what AccountDeleteWorker needs of the service.
type AccountDeletions interface {
	// FinishAccountDeletion works on the deletion until until has passed,
	// and says whether the account is gone.
	FinishAccountDeletion(ctx context.Context, accountID int64, until time.Time) (bool, error)
}

// AccountDeleteWorker runs AccountDeleteArgs. A failure is returned to
// River, which retries with its backoff; a run that ran out of its budget
// snoozes (no attempt spent) and goes on.
type AccountDeleteWorker struct {
	river.WorkerDefaults[AccountDeleteArgs]
	Accounts AccountDeletions
	// Budget is how long a run works (AccountDeleteBudget if 0).
	Budget time.Duration
}

func (w *AccountDeleteWorker) Work(ctx context.Context, job *river.Job[AccountDeleteArgs]) error {
	if w.Accounts == nil {
		return errors.New("account delete: the worker is not wired to the service")
	}
	budget := w.Budget
	if budget <= 0 {
		budget = AccountDeleteBudget
	}
	done, err := w.Accounts.FinishAccountDeletion(ctx, job.Args.AccountID, time.Now().Add(budget))
	if err != nil {
		return fmt.Errorf("account delete %d: %w", job.Args.AccountID, err)
	}
	if !done {
		return river.JobSnooze(time.Second)
	}
	return nil
}
