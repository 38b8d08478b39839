package trust

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify/notifytest"
)

// remote is an agent of an account of a process under test, with its human.
type remote struct {
	slug  string
	email string
	agent app.Agent
	user  app.User
	sess  *mcp.ClientSession
	// With more than one node: the agent's key, the nodes' base URLs and
	// the one its session is on; after a transport failure it moves on to
	// the next node (a load balancer's part), under mu.
	key   string
	bases []string
	node  int
	mu    sync.Mutex
}

// session is the agent's current MCP session.
func (r *remote) session() *mcp.ClientSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sess
}

// moveOn connects the agent to the next node, if it has several and failed
// is still its session (another caller may have moved it already).
func (r *remote) moveOn(failed *mcp.ClientSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bases) < 2 || r.sess != failed {
		return
	}
	next := (r.node + 1) % len(r.bases)
	sess, err := connectAgent(r.bases[next], r.slug, r.key)
	if err != nil {
		return // that node is down too: the next failure moves on again
	}
	_ = r.sess.Close()
	r.sess, r.node = sess, next
}

func connectAgent(base, slug, key string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "crash-" + slug, Version: "1"}, nil)
	return client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/" + slug,
		HTTPClient: &http.Client{Transport: recorder{key: key, base: transport}, Timeout: 20 * time.Second}, DisableStandaloneSSE: true}, nil)
}

func newRemote(t testing.TB, w *world, base, slug string) *remote {
	t.Helper()
	ctx := context.Background()
	r := &remote{slug: slug, email: slug + "@example.test"}
	if _, err := w.accounts.CreateAccount(ctx, slug, "Tenant "+slug, r.email); err != nil {
		t.Fatal(err)
	}
	ag, key, err := w.accounts.CreateAgent(ctx, slug, "agent", r.email)
	if err != nil {
		t.Fatal(err)
	}
	r.agent = ag
	if r.user, err = w.accounts.UserByEmail(ctx, r.email); err != nil {
		t.Fatal(err)
	}
	r.key = key.Key
	r.sess, err = connectAgent(base, slug, key.Key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.session().Close() })
	return r
}

// crashLoad is the agents' side of the crash test: negotiations in a loop,
// every successful answer kept as acknowledged, every call that failed in
// transit retried as it was until it is answered.
type crashLoad struct {
	t         *testing.T
	w         *world
	mu        sync.Mutex
	acks      []crashAck
	calls     atomic.Int64
	hist      *history     // every call, for the linearizability check
	lost      atomic.Int64 // calls that failed in transit (then retried)
	refused   []string     // retries of a move refused instead of answered
	retryable atomic.Int64 // tool errors that said "retry" (the database switching over)
	pending   []string     // confirmations left waiting for their human
	rooms     atomic.Int64
	// people, if set, are the humans confirming through the nodes' one-tap
	// pages; without them they confirm through the test's own pool (w).
	people *people
}

func newCrashLoad(t *testing.T, w *world) *crashLoad {
	return &crashLoad{t: t, w: w, hist: newHistory()}
}

type crashAck struct {
	kind  string
	agent app.Agent
	token string
	hash  string // propose: the terms tabled
	cid   string // respond: the confirmation
	// start and end: when the call that was answered began and ended.
	start, end time.Time
}

func (l *crashLoad) ack(a crashAck) {
	l.mu.Lock()
	l.acks = append(l.acks, a)
	l.mu.Unlock()
}

// do calls a tool until it is answered: a transport failure (the process
// died) is retried with the same arguments after a pause. It returns the
// answer, and whether an earlier attempt failed in transit. Every attempt
// goes into the history as in: answered, refused, or without an answer.
func (l *crashLoad) do(ctx context.Context, r *remote, tool string, args any, in histIn) (result, bool, error) {
	retried := false
	for {
		l.calls.Add(1)
		sess := r.session()
		start := l.hist.now()
		res, err := callOn(ctx, sess, tool, args)
		if err == nil && res.err == app.RetryMessage {
			// The database did not answer (a failover): the same call
			// again, as the answer says.
			l.hist.add(r.slug, in, start, unknown())
			l.retryable.Add(1)
			retried = true
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err == nil {
			l.hist.add(r.slug, in, start, outcome(in.side, res))
			return res, retried, nil
		}
		l.hist.add(r.slug, in, start, unknown())
		if ctx.Err() != nil {
			return result{}, retried, ctx.Err()
		}
		l.lost.Add(1)
		retried = true
		r.moveOn(sess)
		time.Sleep(100 * time.Millisecond)
	}
}

// human calls the service as side's human would through a page, until the
// database answers; every attempt goes into the history.
func (l *crashLoad) human(r *remote, in histIn, call func() (histOut, error)) error {
	for {
		start := l.hist.now()
		out, err := call()
		if !app.Unavailable(err) {
			if err == nil {
				l.hist.add(r.slug+"-human", in, start, out)
			} else if app.ErrorCodeOf(err) != app.ErrInternal {
				l.hist.add(r.slug+"-human", in, start, refusal(app.ErrorMessageOf(err)))
			}
			return err
		}
		// The database switching over: the human tries again.
		l.hist.add(r.slug+"-human", in, start, unknown())
		time.Sleep(100 * time.Millisecond)
	}
}

var errStop = errors.New("stop")

// negotiate plays one negotiation between a and b; n makes its terms
// unique and names the room in the history. After each move the other
// side reads the room (on its own node, in a load over several); one
// negotiation in four has a need_more_detail for the second move.
func (l *crashLoad) negotiate(ctx context.Context, a, b *remote, n int) error {
	var start time.Time
	step := func(r *remote, tool string, args map[string]any, in histIn) (result, error) {
		start = time.Now()
		in.room = n
		res, retried, err := l.do(ctx, r, tool, args, in)
		if err != nil {
			return res, errStop
		}
		if res.err != "" {
			if retried && tool != "negotiation_open" {
				l.mu.Lock()
				l.refused = append(l.refused, fmt.Sprintf("%s %s retried after a crash: %s", r.slug, tool, res.err))
				l.mu.Unlock()
			} else {
				l.t.Errorf("%s %s: %s", r.slug, tool, res.err)
			}
			return res, errStop
		}
		return res, nil
	}
	open, err := step(a, "negotiation_open", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(n)},
		histIn{side: "a", kind: "open", hash: termsHash(feeTerms(n))})
	if err != nil {
		return err
	}
	l.rooms.Add(1)
	ta := open.str("room_token")
	l.ack(crashAck{kind: "open", agent: a.agent, token: ta, start: start, end: time.Now()})
	join, err := step(b, "negotiation_join", map[string]any{"invite_code": open.str("invite_code"), "subject_schema": raceSchema},
		histIn{side: "b", kind: "join"})
	if err != nil {
		return err
	}
	tb := join.str("room_token")
	l.ack(crashAck{kind: "join", agent: b.agent, token: tb, start: start, end: time.Now()})
	turn := [2]*remote{b, a}
	tokens := [2]string{tb, ta}
	sides := [2]string{"b", "a"}
	hash := ""
	for i := range 2 {
		args := map[string]any{"room_token": tokens[i], "verdict": "counter", "subject": feeTerms(n + 1 + i)}
		in := histIn{side: sides[i], kind: "propose", verdict: "counter", hash: termsHash(feeTerms(n + 1 + i))}
		if i == 1 && n%4 == 1 {
			args = map[string]any{"room_token": tokens[i], "verdict": "need_more_detail", "fields": []string{"fee"}}
			in = histIn{side: sides[i], kind: "propose", verdict: "need_more_detail"}
		}
		res, err := step(turn[i], "negotiation_propose", args, in)
		if err != nil {
			return err
		}
		hash = tableHash(res.out)
		l.ack(crashAck{kind: "propose", agent: turn[i].agent, token: tokens[i], hash: hash, start: start, end: time.Now()})
		if _, err := step(turn[1-i], "negotiation_read", map[string]any{"room_token": tokens[1-i]}, histIn{side: sides[1-i], kind: "read"}); err != nil {
			return err
		}
	}
	for i, side := range []*remote{b, a} {
		res, err := step(side, "negotiation_respond", map[string]any{"room_token": tokens[i], "verdict": "approve", "subject_hash": hash},
			histIn{side: sides[i], kind: "request", verdict: "approve", hash: hash})
		if err != nil {
			return err
		}
		c, _ := res.out["pending_confirmation"].(map[string]any)
		cid, _ := c["id"].(string)
		l.ack(crashAck{kind: "respond", agent: side.agent, token: tokens[i], cid: cid, start: start, end: time.Now()})
		if i == 1 && n%3 == 0 {
			l.mu.Lock()
			l.pending = append(l.pending, cid)
			l.mu.Unlock()
			return nil // left for the human: its request must arrive, once
		}
		decide := histIn{room: n, side: sides[i], kind: "decide", hash: hash, cid: cid, accept: true}
		if l.people != nil {
			if err := l.confirmByMail(ctx, side, decide, start); err != nil {
				if !errors.Is(err, errStop) {
					l.t.Errorf("%s's human: %v", side.slug, err)
				}
				return errStop
			}
			continue
		}
		bg := context.WithoutCancel(ctx)
		var roomID int64
		err = l.human(side, histIn{room: n, side: sides[i], kind: "read"}, func() (histOut, error) {
			v, err := l.w.rooms.Read(bg, side.agent, tokens[i])
			if err != nil {
				return histOut{}, err
			}
			roomID = v.RoomID
			return histOut{known: true, view: viewOfApp(sides[i], v)}, nil
		})
		if err != nil {
			return err
		}
		err = l.human(side, decide, func() (histOut, error) {
			d, err := l.w.rooms.DecideAsOwner(bg, side.user.ID, roomID, cid, negotiation.SubjectHash(hash), true)
			if err != nil {
				return histOut{}, err
			}
			return histOut{known: true, result: string(d.Result), view: roomView{state: string(d.State)}}, nil
		})
		if err != nil {
			l.t.Errorf("%s's human: %v", side.slug, err)
			return errStop
		}
	}
	return nil
}

// TestCrashes kills `taasky serve` with SIGKILL at random moments under
// load from MCP agents and their humans (confirming from their emails on
// the one-tap page: people), restarts it, and then checks: no acknowledged move
// lost, every room the replay of its log, every confirmation request still
// waiting delivered by email, no email sent twice.
func TestCrashes(t *testing.T) {
	t.Parallel() // mostly waiting: for restarts, and for River to give back the jobs of a killed process
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	kills := size(3, 10)
	dsn := pgtest.NewDSN(t)
	smtp := notifytest.NewSMTPServer(t)
	p := newProcess(t, dsn, fmt.Sprintf("SMTP_URL=smtp://%s:%d", smtp.Host, smtp.Port),
		"MCP_RATE_LIMIT=0", "WEB_RATE_LIMIT=0", "COUNTER_COOLDOWN=0")
	p.start()
	w := newWorld(t, dsn, p.base)
	agents := []*remote{}
	for i := range 4 {
		agents = append(agents, newRemote(t, w, p.base, fmt.Sprintf("crash%d", i)))
	}
	l := newCrashLoad(t, w)
	l.people = newPeople(smtp, p.base)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := i * 1_000_000; ctx.Err() == nil; n += 3 {
				a, b := agents[i], agents[(i+1+n%3)%4]
				if a == b {
					b = agents[(i+1)%4]
				}
				if err := l.negotiate(ctx, a, b, n); err != nil && ctx.Err() == nil {
					if !errors.Is(err, errStop) {
						t.Error(err)
					}
				}
			}
		}()
	}

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	began := time.Now()
	var down time.Duration
	for range kills {
		time.Sleep(time.Duration(500+rng.IntN(2500)) * time.Millisecond)
		killed := time.Now()
		p.kill()
		p.start()
		down += time.Since(killed)
	}
	time.Sleep(time.Second)
	stop()
	wg.Wait()
	loadTime := time.Since(began)

	// Acknowledged means committed.
	bg := context.Background()
	lost := l.lostAcks(bg)
	t.Logf("crashes: %s", l.hist.check(t))
	t.Logf("crashes: %s", l.people)
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
	check := exec.Command(p.bin, "check")
	check.Env = p.env
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("taasky check: %v\n%s", err, out)
	}

	// Every email job finishes (sent, or skipped because the confirmation
	// was answered first); the confirmations still waiting each got their
	// request, once; no message was sent twice.
	waitFrom := time.Now()
	var unfinished int
	for {
		unfinished = countRows(t, w, `SELECT count(*) FROM river_job WHERE kind = 'notify_email' AND state NOT IN ('completed', 'discarded', 'cancelled')`)
		if unfinished == 0 || time.Since(waitFrom) > 4*time.Minute {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if unfinished > 0 {
		var states string
		_ = w.pool.QueryRow(bg, `SELECT string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM river_job
			WHERE kind = 'notify_email' AND state NOT IN ('completed', 'discarded', 'cancelled') GROUP BY state) x`).Scan(&states)
		t.Errorf("%d email jobs unfinished %s after the last restart (%s)", unfinished, time.Since(waitFrom).Round(time.Second), states)
	}
	deliveryWait := time.Since(waitFrom)
	mails := smtp.Mails()
	byID := map[string]int{}
	acceptedAt := map[string][]time.Time{}   // Message-ID → when the SMTP server accepted each copy
	requests := map[string]map[string]bool{} // confirmation id → the Message-IDs that requested it
	for _, m := range mails {
		hdr, body, err := readMail(m.Data)
		if err != nil {
			t.Errorf("a mail that does not parse: %v", err)
			continue
		}
		byID[hdr.Get("Message-Id")]++
		acceptedAt[hdr.Get("Message-Id")] = append(acceptedAt[hdr.Get("Message-Id")], m.AcceptedAt)
		for _, tok := range oneTapLink.FindAllStringSubmatch(body, -1) {
			h := sha256.Sum256([]byte(tok[1]))
			var cid string
			if err := w.pool.QueryRow(bg, `SELECT confirmation_id FROM onetap_tokens WHERE token_hash = $1`, h[:]).Scan(&cid); err != nil {
				t.Errorf("a one-tap link in a mail opens nothing: %v", err)
				continue
			}
			if requests[cid] == nil {
				requests[cid] = map[string]bool{}
			}
			requests[cid][hdr.Get("Message-Id")] = true
			break
		}
	}
	dupIDs, inTheWindow, dupRequests, undelivered := 0, 0, 0, 0
	for id, n := range byID {
		if n > 1 {
			// The same message again: a rescued job that sent what an
			// earlier attempt had sent. The worker logs a send as soon as
			// the server accepts it, in one statement, and reads the log
			// before sending, so only a kill between the server's
			// acceptance and that statement can do this (docs/security.md,
			// "Open"). The log tells which.
			dupIDs += n - 1
			why, inWindow := whyResent(t, w, id, acceptedAt[id])
			if !inWindow {
				t.Errorf("message %s sent %d times: %s", id, n, why)
				continue
			}
			// The residual risk docs/security.md names: reported and
			// counted, not failed (a kill lands there now and then).
			inTheWindow += n - 1
			t.Logf("KNOWN: message %s sent %d times: %s", id, n, why)
		}
	}
	for cid, ids := range requests {
		if len(ids) > 1 {
			// Two different messages for one confirmation: a real duplicate.
			dupRequests += len(ids) - 1
			t.Errorf("confirmation %s requested by %d different emails", cid, len(ids))
		}
	}
	for _, cid := range l.pending {
		if len(requests[cid]) == 0 {
			undelivered++
		}
	}
	if undelivered > 0 {
		t.Errorf("%d of %d confirmations waiting for their human got no email", undelivered, len(l.pending))
	}
	t.Logf("crashes: %d kill -9 in %s of load (%d restarts, %s down in all); %d rooms, %d calls, %d failed in transit and retried, "+
		"%d acknowledged results, %d lost; retries refused: %d; checker: %d rooms, %d differences; "+
		"emails: %d sent, %d resent with the same Message-ID (%d of them in the acceptance window), %d requests duplicated as other messages; %d confirmations waiting, %d undelivered; "+
		"email jobs all finished %s after the last restart",
		kills, loadTime.Round(time.Millisecond), p.runs-1, down.Round(time.Millisecond), l.rooms.Load(), l.calls.Load(), l.lost.Load(),
		len(l.acks), lost, len(l.refused), rep.Rooms, len(rep.Differences),
		len(mails), dupIDs, inTheWindow, dupRequests, len(l.pending), undelivered, deliveryWait.Round(time.Second))
}

// whyResent says, from the delivery log, why a message was sent again. The
// log's line was written just after the one send it records; a rescued
// attempt comes a minute or more after the one it repeats. A copy accepted
// well before the line was written is a send that was never logged: a kill
// in the window. A copy accepted after it is a send despite the log: the
// check before sending failed.
func whyResent(t testing.TB, w *world, messageID string, accepted []time.Time) (why string, inWindow bool) {
	t.Helper()
	parts := strings.Split(strings.Trim(messageID, "<>"), ".") // taasky.email.<jobs.UniqueID of the job>.<topic>@host
	if len(parts) < 3 {
		return "not a Message-ID Taasky writes", false
	}
	job, err := jobOfMessageID(w, parts[2])
	if err != nil {
		return err.Error(), false
	}
	var status string
	var attempts int
	var logged time.Time
	err = w.pool.QueryRow(context.Background(), `SELECT status, attempts, updated_at FROM notification_deliveries WHERE job_id = $1`,
		job).Scan(&status, &attempts, &logged)
	if err != nil {
		return fmt.Sprintf("no delivery log line (%v)", err), false
	}
	for _, at := range accepted {
		if at.After(logged.Add(time.Second)) {
			return fmt.Sprintf("a copy was accepted at %s, after the log said %s (attempt %d, %s): the check before sending failed",
				at.Format(time.RFC3339Nano), status, attempts, logged.Format(time.RFC3339Nano)), false
		}
	}
	return fmt.Sprintf("the log says %s at attempt %d (%s); the earlier copy's send was never logged: a kill between the SMTP "+
		"server's acceptance and the statement that records it (the window docs/security.md names)", status, attempts, logged.Format(time.RFC3339Nano)), true
}

// jobOfMessageID finds the email job a Message-ID's unique part names, by
// deriving each logged job's (jobs.UniqueID).
func jobOfMessageID(w *world, id string) (int64, error) {
	ctx := context.Background()
	var installation string
	if err := w.pool.QueryRow(ctx, `SELECT id::text FROM installation`).Scan(&installation); err != nil {
		return 0, fmt.Errorf("installation: %w", err)
	}
	rows, err := w.pool.Query(ctx, `SELECT d.job_id, j.created_at FROM notification_deliveries d JOIN river_job j ON j.id = d.job_id`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var job int64
		var created time.Time
		if err := rows.Scan(&job, &created); err != nil {
			return 0, err
		}
		if jobs.UniqueID(installation, "job", strconv.FormatInt(job, 10), strconv.FormatInt(created.UnixNano(), 10)) == id {
			return job, nil
		}
	}
	return 0, fmt.Errorf("no delivery log line names the job of %s", id)
}

func countRows(t testing.TB, w *world, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := w.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// lostAcks reports each acknowledged call whose effect the database does not
// hold (acknowledged means committed), and counts them.
func (l *crashLoad) lostAcks(ctx context.Context) int {
	t, w := l.t, l.w
	t.Helper()
	lost := 0
	for _, a := range l.acks {
		v, err := w.rooms.Read(ctx, a.agent, a.token)
		switch {
		case err != nil:
			t.Errorf("acknowledged %s lost: its room token opens nothing: %v", a.kind, err)
			lost++
		case a.kind == "join" && v.State == negotiation.StateDraft:
			t.Errorf("acknowledged join lost: room %d is a draft", v.RoomID)
			lost++
		case a.kind == "propose" && !worldHasTerms(t, w, v.RoomID, a.hash):
			t.Errorf("acknowledged move lost: room %d has no terms %s", v.RoomID, a.hash)
			lost++
		case a.kind == "respond" && countRows(t, w, `SELECT count(*) FROM confirmations WHERE room_id = $1 AND id = $2`, v.RoomID, a.cid) != 1:
			t.Errorf("acknowledged confirmation request lost: room %d has no %s", v.RoomID, a.cid)
			lost++
		}
	}
	return lost
}

func worldHasTerms(t testing.TB, w *world, room int64, hash string) bool {
	t.Helper()
	rows, err := w.pool.Query(context.Background(), `SELECT event FROM room_events WHERE room_id = $1 AND kind = 'propose'`, room)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var ev string
		if err := rows.Scan(&ev); err != nil {
			t.Fatal(err)
		}
		if termsIn(ev, hash) {
			return true
		}
	}
	return false
}
