package trust

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/notify/notifytest"
)

// TestFailover runs three `taasky serve` nodes on a PostgreSQL primary with
// a synchronous standby, under a steady load of agents spread over the
// nodes and their humans confirming from their emails on the nodes' one-tap
// pages (people), kills the primary with SIGKILL (the standby is promoted, the old
// primary rejoins as the standby) and then kills nodes, and checks: no
// acknowledged move lost or applied twice, every room its log's replay,
// every waiting confirmation's email sent (repeats only as the same
// Message-ID), every error an agent saw a retryable one saying so, and the
// time from each kill to the first move that succeeds.
func TestFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL servers and builds and runs the binary")
	}
	t.Parallel() // mostly waiting: for servers to start, promote and rejoin
	kills := size(1, 3)
	pg := newPGPair(t)
	dsn := pg.DSN()
	smtp := notifytest.NewSMTPServer(t)
	var nodes []*process
	for range 3 {
		p := newProcess(t, dsn, fmt.Sprintf("SMTP_URL=smtp://%s:%d", smtp.Host, smtp.Port),
			"MCP_RATE_LIMIT=0", "WEB_RATE_LIMIT=0", "COUNTER_COOLDOWN=0", "SHUTDOWN_GRACE=0")
		p.start()
		nodes = append(nodes, p)
	}
	w := newWorld(t, dsn, nodes[0].base)
	const agentsN = 6
	var agents []*remote
	var bases []string
	for _, p := range nodes {
		bases = append(bases, p.base)
	}
	home := map[int64]int{}  // agent → the node it starts on
	for i := range agentsN { // agent i starts on node i%3, and moves on when it fails
		r := newRemote(t, w, nodes[i%3].base, fmt.Sprintf("fail%d", i))
		r.bases, r.node = bases, i%3
		home[r.agent.ID] = i % 3
		agents = append(agents, r)
	}
	l := newCrashLoad(t, w)
	l.people = newPeople(smtp, bases...) // each human's requests go to the nodes in turn
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range agentsN {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := i * 1_000_000; ctx.Err() == nil; n += 3 {
				a, b := agents[i], agents[(i+1+n%(agentsN-1))%agentsN]
				if a == b {
					b = agents[(i+1)%agentsN]
				}
				if err := l.negotiate(ctx, a, b, n); err != nil && ctx.Err() == nil && !errors.Is(err, errStop) {
					t.Error(err)
				}
			}
		}()
	}
	acked := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.acks)
	}
	// steady waits until the load has made progress: moves acknowledged
	// since the last event.
	steady := func(what string) {
		from := acked()
		for deadline := time.Now().Add(2 * time.Minute); acked() < from+20; time.Sleep(20 * time.Millisecond) {
			for i, n := range nodes {
				if n.exited() { // a node that died by itself (once: a write raced pgx's own after the primary died)
					t.Fatalf("node %d died on its own, after %s:\n%s", i, what, tail(n.logs(), 6000))
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no progress 2 min after %s (%d moves acknowledged in all)", what, acked())
			}
		}
	}
	began := time.Now()
	steady("the start")
	var primaryKills, nodeKills []time.Time
	var promoteTook []time.Duration
	for k := range kills {
		// The clock starts once every process of the primary is gone: a
		// call begun while the test was still finding them could be
		// answered by it and pass for the first move after its death.
		pg.stopPrimary()
		killed := time.Now()
		pg.promote()
		promoteTook = append(promoteTook, time.Since(killed))
		primaryKills = append(primaryKills, killed)
		steady("the promotion")
		at := time.Now()
		pg.rejoin(1 - pg.prim)
		t.Logf("kill %d of the primary: promoted in %s, the old one rejoined as the standby in %s", k+1, promoteTook[k].Round(time.Millisecond), time.Since(at).Round(time.Millisecond))
		steady(fmt.Sprintf("the old primary's rejoining (%d)", k))
	}
	for k := range kills {
		p := nodes[k%3]
		nodeKills = append(nodeKills, time.Now())
		p.kill()
		steady("a node's kill") // the other nodes' agents carry on
		at := time.Now()
		p.start()
		t.Logf("kill %d of a node: restarted in %s", k+1, time.Since(at).Round(time.Millisecond))
		steady("a node's restart")
	}
	stop()
	wg.Wait()
	loadTime := time.Since(began)
	t.Logf("load stopped after %s", loadTime.Round(time.Millisecond))

	// The first move that began after each kill and was answered.
	firstOK := func(after time.Time, node int) time.Duration { // node -1: any agent
		l.mu.Lock()
		defer l.mu.Unlock()
		best := time.Duration(-1)
		for _, a := range l.acks {
			if node >= 0 && home[a.agent.ID] != node {
				continue
			}
			if a.start.After(after) && (best < 0 || a.end.Sub(after) < best) {
				best = a.end.Sub(after)
			}
		}
		return best
	}
	var recovery []string
	for _, k := range primaryKills {
		recovery = append(recovery, firstOK(k, -1).Round(10*time.Millisecond).String())
	}
	var nodeRecovery []string
	for i, k := range nodeKills { // the first move of an agent that started on the killed node
		nodeRecovery = append(nodeRecovery, firstOK(k, i%3).Round(10*time.Millisecond).String())
	}

	bg := context.Background()
	lost := l.lostAcks(bg)
	t.Logf("failover: %s", l.hist.check(t))
	t.Logf("failover: %s", l.people)
	// Applied twice: a room whose log holds the same side's same move twice
	// in a row (a retry applied again rather than answered; the
	// fingerprint names the side, the verdict and the terms).
	twice := countRows(t, w, `SELECT count(*) FROM (SELECT fingerprint, lag(fingerprint) OVER (PARTITION BY room_id ORDER BY seq) prev
		FROM room_events) e WHERE fingerprint IS NOT NULL AND fingerprint = prev`)
	if twice > 0 {
		t.Errorf("%d moves applied twice", twice)
	}
	for _, r := range l.refused {
		t.Errorf("a retried move was refused, not answered: %s", r)
	}
	rep, err := w.rooms.Check(bg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) > 0 {
		t.Errorf("check: %s", strings.Join(rep.Differences, "\n"))
	}
	check := exec.Command(nodes[0].bin, "check")
	check.Env = nodes[0].env
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("taasky check: %v\n%s", err, out)
	}

	waitFrom := time.Now()
	for countRows(t, w, `SELECT count(*) FROM river_job WHERE kind = 'notify_email' AND state NOT IN ('completed', 'discarded', 'cancelled')`) > 0 {
		if time.Since(waitFrom) > 3*time.Minute {
			t.Fatal("email jobs unfinished 3 min after the load")
		}
		time.Sleep(100 * time.Millisecond)
	}
	byID := map[string]int{}
	requested := map[string]map[string]bool{}
	for _, m := range smtp.Mails() {
		hdr, _, err := readMail(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		id := hdr.Get("Message-Id")
		byID[id]++
		if cid := requestFor(t, w, m.Data); cid != "" {
			if requested[cid] == nil {
				requested[cid] = map[string]bool{}
			}
			requested[cid][id] = true
		}
	}
	resent := 0
	for _, n := range byID {
		resent += n - 1
	}
	undelivered, otherMessages := 0, 0
	for _, cid := range l.pending {
		if len(requested[cid]) == 0 {
			undelivered++
		}
		if len(requested[cid]) > 1 {
			otherMessages++
			t.Errorf("confirmation %s requested by %d different emails", cid, len(requested[cid]))
		}
	}
	if undelivered > 0 {
		t.Errorf("%d of %d confirmations waiting got no email", undelivered, len(l.pending))
	}
	sort.Slice(promoteTook, func(i, j int) bool { return promoteTook[i] < promoteTook[j] })
	t.Logf("failover: %d primary kills (promotion done %v after each kill), %d node kills, in %s of load on 3 nodes, %d agents; "+
		"%d rooms, %d calls, %d acknowledged, %d lost, %d applied twice, %d retried after a transport failure, %d retryable tool errors (all saying to retry), %d retries refused; "+
		"first successful move after the primary's death: %s; of an agent of the dead node, served by another, after its death: %s; checker: %d rooms, %d differences; "+
		"emails: %d sent, %d resent with the same Message-ID, %d requested by another message; %d confirmations waiting, %d undelivered",
		kills, promoteTook, kills, loadTime.Round(time.Second), agentsN,
		l.rooms.Load(), l.calls.Load(), len(l.acks), lost, twice, l.lost.Load(), l.retryable.Load(), len(l.refused),
		strings.Join(recovery, ", "), strings.Join(nodeRecovery, ", "), rep.Rooms, len(rep.Differences),
		len(smtp.Mails()), resent, otherMessages, len(l.pending), undelivered)
}
