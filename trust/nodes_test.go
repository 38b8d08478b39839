package trust

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestThreeNodes runs three `taasky serve` processes on one database: two
// web-only nodes and one worker-only, then all three full. Agents are
// spread over the web nodes, each negotiation's two agents on different
// nodes, the humans confirming; every confirmation left waiting must get
// its email, worked by whichever process works jobs.
func TestThreeNodes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn := pgtest.NewDSN(t)
	smtp := notifytest.NewSMTPServer(t)
	env := []string{fmt.Sprintf("SMTP_URL=smtp://%s:%d", smtp.Host, smtp.Port), "MCP_RATE_LIMIT=0", "WEB_RATE_LIMIT=0", "COUNTER_COOLDOWN=0", "SHUTDOWN_GRACE=0"}
	var nodes []*process
	for range 3 {
		nodes = append(nodes, newProcess(t, dsn, env...))
	}
	var w *world
	round := func(phase string, web []*process) {
		l := newCrashLoad(t, w)
		var bases []string
		for _, p := range web {
			bases = append(bases, p.base)
		}
		l.people = newPeople(smtp, bases...) // the humans confirm on the web nodes, each request on the next
		var agents []*remote
		for i := range 4 {
			agents = append(agents, newRemote(t, w, web[i%len(web)].base, fmt.Sprintf("%s%d", phase, i)))
		}
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := i * 1000; n < i*1000+15; n++ {
					// agents i and i+1 are on different web nodes
					if err := l.negotiate(context.Background(), agents[i], agents[(i+1)%4], n); err != nil {
						t.Errorf("%s: %v", phase, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("%s: %s", phase, l.hist.check(t))
		t.Logf("%s: %s", phase, l.people)
		deadline := time.Now().Add(2 * time.Minute)
		for {
			missing := 0
			requested := map[string]bool{}
			for _, m := range smtp.Mails() {
				if cid := requestFor(t, w, m.Data); cid != "" {
					requested[cid] = true
				}
			}
			for _, cid := range l.pending {
				if !requested[cid] {
					missing++
				}
			}
			if missing == 0 {
				t.Logf("%s: %d rooms, %d acknowledged results over %d web nodes, %d confirmations waiting, all emailed", phase, l.rooms.Load(), len(l.acks), len(web), len(l.pending))
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d of %d waiting confirmations got no email in 2 min", phase, missing, len(l.pending))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	nodes[0].args, nodes[1].args = []string{"--worker=false"}, []string{"--worker=false"}
	nodes[0].start()
	nodes[1].start()
	w = newWorld(t, dsn, nodes[0].base)
	nodes[2].args = []string{"--web=false"}
	nodes[2].ready = func() bool { return countRows(t, w, leaseLocks) == 1 }
	nodes[2].start()
	round("split", nodes[:2])

	for _, p := range nodes {
		p.kill()
		p.args, p.ready = nil, nil
		p.start()
	}
	if n := countRows(t, w, leaseLocks); n != 3 {
		t.Errorf("%d worker leases held with three full nodes, want 3", n)
	}
	round("full", nodes)
}
