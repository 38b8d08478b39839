package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

const day = 24 * time.Hour

// testPeriods are the defaults of internal/config.
var testPeriods = RetentionPeriods{DeliveryLog: 90 * day, OneTap: 30 * day, Webhooks: 30 * day}

// TestRetentionPurge: the purge, run by River's purge job (twice at once,
// then again), deletes each table's rows past their period and keeps the
// rows inside it, what an open room still needs, and what a receipt
// reads; a late tap on a kept link says what happened, one on a deleted
// link says it is not valid; the rooms' log still checks.
func TestRetentionPurge(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	now := func() time.Time { return time.Unix(0, rb.clock.Load()).UTC() }
	t0 := now()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := rb.pool.Exec(rb.ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// Day 0: X agreed (its link used), L agreed before channels were
	// recorded (its receipt reads the link), O still open (its link unused).
	x, xToken := rb.agreeWithLink(t)
	l, _ := rb.agreeWithLink(t)
	exec(`UPDATE confirmations SET channel = NULL WHERE room_id = $1 AND channel = 'email'`, l)
	o := rb.askB(t, "", 11, "")
	oToken := o.oneTap(t, rb)
	exec(`INSERT INTO person_deliveries (room_id, job_id, channel, topic, recipient, status, created_at, updated_at)
		VALUES ($1, 1, 'email', 'turn', 'pat@example.test', 'sent', $2, $2), ($1, 2, 'email', 'turn', 'pat@example.test', 'sent', $3, $3)`,
		o.v.RoomID, t0, t0.Add(70*day))
	// Day 69 and 71: W and Z agreed; day 100: Y agreed.
	rb.advance(69 * day)
	w, _ := rb.agreeWithLink(t)
	rb.advance(2 * day)
	z, _ := rb.agreeWithLink(t)
	rb.advance(29 * day)
	y, yToken := rb.agreeWithLink(t)
	at := now() // day 100

	// Delivery logs: b has a line 91 days old and one 89; a has 120 lines
	// 100 days old (more than a statement takes of one user) and one of
	// yesterday.
	exec(`INSERT INTO notification_deliveries (user_id, job_id, channel, topic, recipient, status, created_at, updated_at)
		VALUES ($1, 9000010, 'email', 'request', 'beta@example.test', 'sent', $2, $2),
		       ($1, 9000011, 'email', 'request', 'beta@example.test', 'failed', $3, $3),
		       ($4, 9000012, 'email', 'agreed', 'alpha@example.test', 'sent', $5, $5)`,
		rb.b.OwnerUserID, at.Add(-91*day), at.Add(-89*day), rb.a.OwnerUserID, at.Add(-day))
	exec(`INSERT INTO notification_deliveries (user_id, job_id, channel, topic, recipient, status, created_at, updated_at)
		SELECT $1, 9001000 + i, 'push', 'request', 'push.example.test', 'sent', $2, $2 FROM generate_series(1, 120) i`,
		rb.a.OwnerUserID, at.Add(-100*day))

	// Webhooks: of alpha's endpoint, 150 messages sent 40 days ago, one
	// failed 40 days ago but sent again 10 days ago, one still retrying,
	// one sent 5 days ago; two left unfinished 40 days ago by a job that
	// went (cancelled, or its process died in its last attempt), one
	// before its first attempt.
	var account, endpoint int64
	if err := rb.pool.QueryRow(rb.ctx, `INSERT INTO webhook_endpoints (account_id, url, events, secrets, created_at)
		SELECT id, 'https://hooks.example.test/x', '{room.agreed}', '\x00', $1 FROM accounts WHERE slug = 'alpha'
		RETURNING account_id, id`, t0).Scan(&account, &endpoint); err != nil {
		t.Fatal(err)
	}
	hook := func(id, status string, occurred time.Time, attempts ...time.Time) {
		t.Helper()
		exec(`INSERT INTO webhook_messages (account_id, id, endpoint_id, event, room_id, side, seq, occurred_at, payload, status, attempts)
			VALUES ($1, $2, $3, 'room.agreed', $4, 'a', 1, $5, '{}', $6, $7)`, account, id, endpoint, x, occurred, status, len(attempts))
		for i, a := range attempts {
			exec(`INSERT INTO webhook_attempts (account_id, message_id, job_id, attempt, at, duration_ms, status_code)
				VALUES ($1, $2, 1, $3, $4, 12, 200)`, account, id, i+1, a)
		}
	}
	for i := range 150 {
		hook(fmt.Sprintf("msg_old%03d", i), "sent", at.Add(-40*day), at.Add(-40*day))
	}
	hook("msg_resent", "sent", at.Add(-40*day), at.Add(-40*day), at.Add(-10*day))
	hook("msg_retrying", "retrying", at.Add(-2*day), at.Add(-2*day), at.Add(-day))
	hook("msg_left_retrying", "retrying", at.Add(-40*day), at.Add(-40*day))
	hook("msg_left_queued", "queued", at.Add(-40*day))
	hook("msg_recent", "sent", at.Add(-5*day), at.Add(-5*day))

	count := func(sql string, args ...any) (n int) {
		t.Helper()
		if err := rb.pool.QueryRow(rb.ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The lines the rooms' own notifications wrote count too.
	oldLines := count(`SELECT count(*) FROM notification_deliveries WHERE created_at < $1`, at.Add(-90*day))
	newLines := count(`SELECT count(*) FROM notification_deliveries WHERE created_at >= $1`, at.Add(-90*day))
	if oldLines < 121 || newLines < 2 {
		t.Fatalf("%d old lines, %d new", oldLines, newLines)
	}

	// Two purges at once, by River, as two nodes' leaders might.
	ret := NewRetention(rb.pool, testPeriods)
	var deleted sync.Map
	counting := countingData{ret, &deleted}
	rc := purgeClient(t, rb, counting, now)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { runPurge(t, rb.ctx, rc) })
	}
	wg.Wait()
	want := map[string]int{"notification_deliveries": oldLines, "person_deliveries": 1, "onetap_tokens": 2, "webhook_messages": 152}
	for table, n := range want {
		got, _ := deleted.Load(table)
		if got != n {
			t.Errorf("%s: the two purges deleted %v rows, want %d", table, got, n)
		}
	}
	runPurge(t, rb.ctx, rc)
	deleted.Range(func(table, n any) bool {
		if n != want[table.(string)] {
			t.Errorf("%s: a purge after them deleted more (%v in all)", table, n)
		}
		return true
	})

	lines := func(user int64) (ids []int64) {
		t.Helper()
		rows, err := rb.pool.Query(rb.ctx, `SELECT job_id FROM notification_deliveries WHERE user_id = $1 AND job_id >= 9000000 ORDER BY job_id`, user)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	if got := fmt.Sprint(lines(rb.b.OwnerUserID), lines(rb.a.OwnerUserID)); got != "[9000011] [9000012]" {
		t.Errorf("delivery log lines left: %s, want b's of 89 days and a's of yesterday", got)
	}
	if n := count(`SELECT count(*) FROM notification_deliveries`); n != newLines {
		t.Errorf("%d delivery log lines left, want the %d of the last 90 days", n, newLines)
	}
	if n := count(`SELECT count(*) FROM person_deliveries WHERE room_id = $1 AND job_id = 2`, o.v.RoomID); n != 1 ||
		count(`SELECT count(*) FROM person_deliveries`) != 1 {
		t.Errorf("a person's delivery log: the line of 30 days ago is gone, or the one of 100 days ago stayed")
	}
	tokens := map[string]int64{"X (ended 100 days ago)": x, "W (ended 31 days ago)": w, "Z (ended 29 days ago)": z,
		"Y (ended today)": y, "O (open)": o.v.RoomID, "L (its receipt reads it)": l}
	wantTokens := map[int64]int{x: 0, w: 0, z: 1, y: 1, o.v.RoomID: 1, l: 1}
	for name, id := range tokens {
		if n := count(`SELECT count(*) FROM onetap_tokens WHERE room_id = $1`, id); n != wantTokens[id] {
			t.Errorf("room %s: %d one-tap tokens, want %d", name, n, wantTokens[id])
		}
	}
	var kept []string
	rows, err := rb.pool.Query(rb.ctx, `SELECT id FROM webhook_messages WHERE id NOT LIKE 'msg_old%' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, id)
	}
	rows.Close()
	if fmt.Sprint(kept) != "[msg_recent msg_resent msg_retrying]" || count(`SELECT count(*) FROM webhook_messages`) != 3 ||
		count(`SELECT count(*) FROM webhook_attempts`) != 5 {
		t.Errorf("webhook messages left: %v (%d attempts)", kept, count(`SELECT count(*) FROM webhook_attempts`))
	}

	// What a late tap says.
	if _, err := rb.rooms.OneTapCard(rb.ctx, xToken); ErrorCodeOf(err) != ErrNotFound {
		t.Errorf("the deleted link of X: %v, want not found", err)
	}
	if v, err := rb.rooms.OneTapCard(rb.ctx, yToken); err != nil || v.UsedAt == nil || v.Status != negotiation.ResultApplied {
		t.Errorf("the kept link of Y: %+v, %v; want used, applied", v, err)
	}
	_, err = rb.rooms.DecideOneTap(rb.ctx, yToken, "sha256:00", true)
	var e *Error
	if !errors.As(err, &e) || e.Code != ErrConflict || e.Words.Key != "error.link_used" {
		t.Errorf("a second tap on Y's link: %v, want used already", err)
	}
	if v, err := rb.rooms.OneTapCard(rb.ctx, oToken); err != nil || v.Confirmation == nil {
		t.Errorf("the open room's link: %+v, %v; want its pending card", v, err)
	}
	// L's receipt still says its human answered by email.
	if _, err := rb.rooms.Receipt(rb.ctx, l); err != nil {
		t.Errorf("L's receipt: %v", err)
	}
	rb.checkClean(t)
}

// agreeWithLink agrees a fresh room (agreeOpened) and returns its id and
// the one-tap link its initiator's human answered through.
func (rb *roomsBundle) agreeWithLink(t *testing.T) (int64, string) {
	t.Helper()
	return rb.agreeOpened(t, OpenInput{}, "")
}

// countingData adds up what the purges deleted, per table.
type countingData struct {
	*Retention
	deleted *sync.Map
}

func (c countingData) PurgeOld(ctx context.Context, now, end time.Time) (map[string]int, error) {
	out, err := c.Retention.PurgeOld(ctx, now, end)
	for table, n := range out {
		for {
			old, loaded := c.deleted.LoadOrStore(table, n)
			if !loaded || c.deleted.CompareAndSwap(table, old, old.(int)+n) {
				break
			}
		}
	}
	return out, err
}

// purgeClient is a River client working the purge job alone, on the
// bundle's database, with data and the bundle's clock.
func purgeClient(t *testing.T, rb *roomsBundle, data jobs.OldData, now func() time.Time) *river.Client[pgx.Tx] {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.PurgeWorker{Tokens: NewOAuth(rb.pool), Data: data, Now: now})
	rc, err := river.NewClient(riverpgxv5.New(rb.pool), &river.Config{Workers: workers,
		Queues: jobs.Queues(2, 2), FetchCooldown: jobs.FetchCooldown, FetchOnlyKnownKinds: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(rb.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Stop(context.Background()) })
	return rc
}

// runPurge inserts a purge job and waits for it to complete.
func runPurge(t *testing.T, ctx context.Context, rc *river.Client[pgx.Tx]) {
	t.Helper()
	events, cancel := rc.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	res, err := rc.Insert(ctx, jobs.PurgeArgs{}, nil)
	if err != nil {
		t.Error(err)
		return
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Job.ID != res.Job.ID {
				continue
			}
			if ev.Kind != river.EventKindJobCompleted {
				t.Errorf("the purge job: %s, %v", ev.Kind, ev.Job.Errors)
			}
			return
		case <-timeout:
			t.Error("the purge job did not finish in 30 s")
			return
		}
	}
}

// TestRetentionForgetsThePersonsAddress: the purge, run by River's purge
// job (twice at once, then again), forgets the person's address of the
// rooms that ended more than the one-tap links' period ago as their
// List-Unsubscribe link does (the seat's address, the invitation's, the
// address in their delivery log and in the invitation mail's finished
// job), a room at a time; the rooms that ended since, and open ones, keep
// it. Their personal link still opens the room, its receipt is still
// signed, and the rooms' log still checks.
func TestRetentionForgetsThePersonsAddress(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	now := func() time.Time { return time.Unix(0, rb.clock.Load()).UTC() }
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := rb.pool.Exec(rb.ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	roomOf := func(open *OpenResult) int64 {
		t.Helper()
		v, err := rb.rooms.Read(rb.ctx, rb.a, open.RoomToken)
		if err != nil {
			t.Fatal(err)
		}
		return v.RoomID
	}
	// invite opens a room whose invitation is emailed to invited.
	invite := func(invited string) *OpenResult {
		t.Helper()
		open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, "20"), InviteEmail: invited})
		if err != nil {
			t.Fatal(err)
		}
		return open
	}
	// answer has a person approve the opening terms in the browser, giving
	// email (or none: the invitation's address is theirs).
	answer := func(open *OpenResult, email string) (seat string, hash negotiation.SubjectHash) {
		t.Helper()
		inv, err := rb.rooms.InvitationByCode(rb.ctx, open.InviteCode, nil)
		if err != nil {
			t.Fatal(err)
		}
		hash = inv.Card.Options[0].SubjectHash
		res, err := rb.rooms.AnswerInvitation(rb.ctx, open.InviteCode, PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: hash, Email: email})
		if err != nil {
			t.Fatal(err)
		}
		return res.SeatToken, hash
	}
	agree := func(open *OpenResult, hash negotiation.SubjectHash) {
		t.Helper()
		cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, open.RoomToken, negotiation.VerdictApprove, hash)
		if err != nil {
			t.Fatal(err)
		}
		if d := rb.confirm(t, rb.a, open.RoomToken, cv); d.State != negotiation.StateAgreed {
			t.Fatalf("agree: %+v", d)
		}
	}

	// Day 0: A's person gives their own address and agrees; B's invitation
	// goes unanswered and closes at its end (day 3).
	a := invite("dave@stranger.test")
	aSeat, aHash := answer(a, "Pat@Example.test")
	agree(a, aHash)
	b := invite("erin@stranger.test")
	rb.advance(negotiation.InvitationTTL + time.Hour)
	if n, err := rb.rooms.CloseDue(rb.ctx, 10); err != nil || n != 1 {
		t.Fatalf("closing B at its invitation's end: %d, %v", n, err)
	}
	// Day 10: K's person (the invitation's address) agrees.
	rb.advance(7 * day)
	k := invite("kim@stranger.test")
	_, kHash := answer(k, "")
	agree(k, kHash)
	// Day 39: O's person answered; O is still open.
	rb.advance(29 * day)
	o := invite("olga@stranger.test")
	answer(o, "")
	// The invitation mails (and the others) went out.
	exec(`UPDATE river_job SET state = 'completed', finalized_at = now() WHERE state = 'available'`)

	address := func(open *OpenResult) string {
		t.Helper()
		var seat, invited, sent, mailed string
		if err := rb.pool.QueryRow(rb.ctx, `SELECT coalesce((SELECT person_email FROM parties WHERE room_id = r.id AND side = 'b'), '-'),
				coalesce(r.invite_email, '-'),
				coalesce((SELECT string_agg(recipient, ',') FROM person_deliveries WHERE room_id = r.id), '-'),
				coalesce((SELECT string_agg(coalesce(args->>'to', ''), ',') FROM river_job WHERE kind = 'notify_invite'
					AND (args->>'room_id')::bigint = r.id), '-')
			FROM rooms r WHERE r.id = $1`, roomOf(open)).Scan(&seat, &invited, &sent, &mailed); err != nil {
			t.Fatal(err)
		}
		return seat + " " + invited + " " + sent + " " + mailed
	}
	before := map[*OpenResult]string{a: "pat@example.test dave@stranger.test pat@example.test dave@stranger.test",
		b: "- erin@stranger.test - erin@stranger.test", k: "kim@stranger.test kim@stranger.test kim@stranger.test kim@stranger.test",
		o: "olga@stranger.test olga@stranger.test - olga@stranger.test"}
	for open, want := range before {
		if got := address(open); got != want {
			t.Fatalf("room %d before the purge: %q, want %q", roomOf(open), got, want)
		}
	}

	// Day 40: A ended 40 days ago, B 37, K 30 less an hour.
	rb.advance(day - time.Hour)
	ret := NewRetention(rb.pool, testPeriods)
	var forgotten sync.Map
	rc := purgeClient(t, rb, countingData{ret, &forgotten}, now)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { runPurge(t, rb.ctx, rc) })
	}
	wg.Wait()
	runPurge(t, rb.ctx, rc)
	if n, _ := forgotten.Load("person_addresses"); n != 2 {
		t.Errorf("the purges forgot the address of %v rooms, want 2 (A and B, once)", n)
	}
	after := map[*OpenResult]string{a: "- -  ", b: "- - - ", k: before[k], o: before[o]}
	for open, want := range after {
		if got := address(open); got != want {
			t.Errorf("room %d after the purge: %q, want %q", roomOf(open), got, want)
		}
	}

	// A's person still opens their room, agreed, and its receipt.
	seat, err := rb.rooms.PersonRoom(rb.ctx, aSeat, nil)
	if err != nil || seat.View.State != negotiation.StateAgreed {
		t.Fatalf("A's seat after its address was forgotten: %v %+v", err, seat)
	}
	if _, err := rb.rooms.Receipt(rb.ctx, roomOf(a)); err != nil {
		t.Errorf("A's receipt: %v", err)
	}
	rb.checkClean(t)
}

// TestRetentionKeepsWebhooksTheirJobsMayStillSend: with RETAIN_WEBHOOK_DAYS
// shorter than a webhook job's life, a message still queued (its worker
// away) or retrying is kept until webhookJobsEnd, and only a final one
// goes after the period: its job would find it gone.
func TestRetentionKeepsWebhooksTheirJobsMayStillSend(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	ctx := t.Context()
	acc, err := NewAccounts(pool).CreateAccount(ctx, "hooked", "Hooked", "owner@example.test")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var endpoint int64
	if err := pool.QueryRow(ctx, `INSERT INTO webhook_endpoints (account_id, url, events, secrets, created_at)
		VALUES ($1, 'https://hooks.example.test/x', '{room.agreed}', '\x00', $2) RETURNING id`, acc.ID, now.Add(-40*day)).Scan(&endpoint); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		id, status string
		age        time.Duration
	}{{"sent_3d", "sent", 3 * day}, {"queued_3d", "queued", 3 * day}, {"retrying_3d", "retrying", 3 * day}, {"queued_31d", "queued", 31 * day}} {
		if _, err := pool.Exec(ctx, `INSERT INTO webhook_messages (account_id, id, endpoint_id, event, room_id, side, seq, occurred_at, status)
			VALUES ($1, $2, $3, 'room.agreed', 1, 'a', 1, $4, $5)`, acc.ID, m.id, endpoint, now.Add(-m.age), m.status); err != nil {
			t.Fatal(err)
		}
	}
	ret := NewRetention(pool, RetentionPeriods{Webhooks: day})
	if n, err := ret.purgeWebhooks(ctx, now.Add(-day), now.Add(time.Minute)); err != nil || n != 2 {
		t.Fatalf("purged %d (%v), want the sent message and the one queued 31 days ago", n, err)
	}
	var kept []string
	rows, err := pool.Query(ctx, `SELECT id FROM webhook_messages ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	if kept, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || fmt.Sprint(kept) != "[queued_3d retrying_3d]" {
		t.Errorf("kept %v (%v), want the queued and retrying messages of 3 days ago", kept, err)
	}
}
