package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"time"

	"github.com/taasky/taasky/app"
)

// Rescue after a crash: each worker process holds a lease (app.HoldLease)
// named after its River client ID, and every worker looks, each
// rescueEvery, for running jobs whose worker's lease is gone. A job seen
// orphaned twice, orphanConfirm apart, is given back to the queue: the
// wait covers a live process's lease connection being re-taken after a
// failover (the new primary holds no locks until each process reconnects,
// about a second), so that a job a live process still works is not run
// twice. A killed worker's confirmation email thus goes out some
// orphanConfirm+rescueEvery after its death (docs/security.md has the
// figures), not after River's RescueStuckJobsAfter, which stays as the
// backstop for processes that hold no lease.
const (
	rescueEvery   = time.Second
	orphanConfirm = 5 * time.Second
	// orphanMinAge: a job fetched this moment is not looked at.
	orphanMinAge = time.Second
)

// newNodeID is a River client ID with the lease prefix: the host's name,
// clipped, and random bits (several processes may share a host).
func newNodeID() string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r < 0x21 || r > 0x7e {
			return '-'
		}
		return r
	}, host)
	if len(host) > 40 {
		host = host[:40]
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return app.LeasePrefix + host + "-" + hex.EncodeToString(b[:])
}

// startLease holds this process's lease until ctx ends and returns once it
// is first held (or ctx is done): River must not fetch a job before the
// other workers can see that this process is alive.
func (s *server) startLease(ctx context.Context) {
	held := make(chan struct{}, 1)
	go app.HoldLease(ctx, s.pool.Config().ConnConfig.Copy(), s.river.ID(), s.log.With("component", "lease"), func() {
		select {
		case held <- struct{}{}:
		default:
		}
	})
	select {
	case <-held:
	case <-ctx.Done():
	}
}

// rescueOrphans gives back, until ctx ends, the jobs of worker processes
// whose lease is gone.
func (s *server) rescueOrphans(ctx context.Context) {
	log := s.log.With("component", "rescue")
	seen := map[int64]time.Time{} // job → when first seen orphaned
	tick := time.NewTicker(rescueEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		ids, err := app.OrphanedJobs(ctx, s.pool, orphanMinAge)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("look for orphaned jobs", "err", err)
			}
			continue
		}
		now := time.Now()
		next := map[int64]time.Time{}
		var due []int64
		for _, id := range ids {
			first, ok := seen[id]
			if !ok {
				first = now
			}
			if now.Sub(first) >= orphanConfirm {
				due = append(due, id)
				continue
			}
			next[id] = first
		}
		seen = next
		if len(due) == 0 {
			continue
		}
		back, err := app.GiveBackOrphans(ctx, s.pool, due, orphanMinAge)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("give back orphaned jobs", "err", err)
			}
			continue
		}
		if len(back) > 0 {
			log.Info("gave back the jobs of a worker that died", "jobs", back)
		}
	}
}
