package jobs

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/taasky/taasky/internal/ratelimit"
)

// OutboundPerOwner is how many jobs of one owner (a webhook's account, a
// push's user) a worker process works at once in QueueOutbound. Every
// tenant's webhooks and pushes share that queue's workers, and River
// fetches its jobs oldest first: one account whose ten endpoints never
// answered (10 s each) and whose agents kept moving held all of them, and
// another account's webhook waited behind tens of thousands of its jobs
// (more than 120 s on the running binary, and growing). Past this many, a
// job is snoozed (no attempt spent) and the worker takes the next one, so
// an owner's slow URLs hold at most this many of the workers and the
// others' jobs are worked at once.
const OutboundPerOwner = 3

// PriorityBulk is the River priority (1 first, 4 last) of the webhook
// jobs an account queues past WebhooksAtFullPriority in a process: River
// fetches a queue's jobs by priority, then oldest first, so another
// account's webhook is fetched before a flooding account's backlog,
// rather than after each of its jobs was fetched (and snoozed, past
// OutboundPerOwner) once.
const PriorityBulk = 4

// WebhooksAtFullPriority is the pace at which one account's webhook jobs
// are queued at River's default priority in one process: 20 a second,
// bursts of 200 (an agreement with ten endpoints makes about 40); past it,
// at PriorityBulk.
var WebhooksAtFullPriority = ratelimit.Limit{Rate: 20, Burst: 200}

// OutboundShare counts the outbound jobs each owner has running in this
// process, held to a maximum. Its zero value holds nothing to a maximum
// (no limit); NewOutboundShare makes one.
type OutboundShare struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

// NewOutboundShare holds each owner to max jobs at once (max ≤ 0: no
// limit).
func NewOutboundShare(max int) *OutboundShare {
	return &OutboundShare{max: max, n: map[string]int{}}
}

// snoozeFor is how long a job whose owner is at its share waits before it
// is fetched again: a second, doubling with each such snooze up to a
// minute, with jitter, so that an owner's long backlog is looked at less
// and less often rather than fetched again and again ahead of the rest.
func snoozeFor(job *rivertype.JobRow) time.Duration {
	var meta struct {
		Snoozes int `json:"snoozes"` // River counts a job's snoozes there
	}
	_ = json.Unmarshal(job.Metadata, &meta)
	n := min(max(meta.Snoozes, 0), 6)
	d := min(time.Second<<n, time.Minute)
	return d + rand.N(d/4+1)
}

// enter counts a job of owner, or returns river.JobSnooze's error when the
// owner has its share running already; leave stops counting it.
func (s *OutboundShare) enter(owner string, job *rivertype.JobRow) (leave func(), snooze error) {
	if s == nil || s.max <= 0 {
		return func() {}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[owner] >= s.max {
		return nil, river.JobSnooze(snoozeFor(job))
	}
	s.n[owner]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.n[owner]--; s.n[owner] <= 0 {
			delete(s.n, owner)
		}
	}, nil
}

func accountOwner(id int64) string { return "account " + strconv.FormatInt(id, 10) }
func userOwner(id int64) string    { return "user " + strconv.FormatInt(id, 10) }
