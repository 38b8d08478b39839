package app

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/negotiation"
)

// TestOneTap: a GET (OneTapCard) changes nothing; the POST (DecideOneTap)
// applies the answer once, bound to the hash shown; a second use says so.
func TestOneTap(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	q := rb.askB(t, `{"fee":{"max":{"amount":"10.00","currency":"EUR"}}}`, 10, "20")
	cv := q.cv
	token := q.oneTap(t, rb)
	for range 2 {
		card, err := rb.rooms.OneTapCard(rb.ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		if card.Confirmation == nil || card.Card == nil || card.Side != negotiation.SideB || card.UsedAt != nil {
			t.Fatalf("one-tap card: %+v", card)
		}
		if f := card.Card.Options[0].Fields; len(f) < 2 || f[1].Name != "fee" || len(f[1].Outside) != 1 {
			t.Fatalf("b's card flags the fee above b's max: %+v", f)
		}
	}
	if _, err := rb.rooms.DecideOneTap(rb.ctx, token, "sha256:00", true); ErrorCodeOf(err) != ErrConflict {
		t.Fatalf("an answer for other terms: %v", err)
	}
	// The refused answer rolled back: the link still works, once.
	d, err := rb.rooms.DecideOneTap(rb.ctx, token, cv.SubjectHash, true)
	if err != nil || d.Result != negotiation.ResultApplied {
		t.Fatalf("one-tap confirm: %v %+v", err, d)
	}
	if _, err := rb.rooms.DecideOneTap(rb.ctx, token, cv.SubjectHash, true); ErrorCodeOf(err) != ErrConflict {
		t.Fatalf("second use: %v", err)
	}
	card, err := rb.rooms.OneTapCard(rb.ctx, token)
	if err != nil || card.Status != negotiation.ResultApplied || card.UsedAt == nil || card.Confirmation != nil {
		t.Fatalf("after use: %v %+v", err, card)
	}
	if _, err := rb.rooms.OneTapCard(rb.ctx, "ot_nope"); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("unknown token: %v", err)
	}
	rb.checkClean(t)
}

// sentSQL keeps the text of every statement a pool's connections send,
// alone or in a batch, and counts the round trips (a batch is one).
type sentSQL struct {
	mu    sync.Mutex
	sql   []string
	trips int
}

func (s *sentSQL) add(sql ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sql = append(s.sql, sql...)
	s.trips++
}

// take returns the statements sent since the last take, and their round
// trips.
func (s *sentSQL) take() ([]string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, trips := s.sql, s.trips
	s.sql, s.trips = nil, 0
	return out, trips
}

func (s *sentSQL) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.add(d.SQL)
	return ctx
}
func (s *sentSQL) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *sentSQL) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	sql := make([]string, len(d.Batch.QueuedQueries))
	for i, q := range d.Batch.QueuedQueries {
		sql[i] = q.SQL
	}
	s.add(sql...)
	return ctx
}
func (s *sentSQL) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (s *sentSQL) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// tracedPool is a pool on rb's database whose statements are kept.
func (rb *roomsBundle) tracedPool(t *testing.T) (*pgxpool.Pool, *sentSQL) {
	t.Helper()
	cfg := rb.pool.Config().Copy()
	sent := &sentSQL{}
	cfg.ConnConfig.Tracer = sent
	pool, err := pgxpool.NewWithConfig(rb.ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, sent
}

// tracedRooms is the service of rb on a pool of its own whose statements
// are kept.
func (rb *roomsBundle) tracedRooms(t *testing.T) (*Rooms, *sentSQL) {
	t.Helper()
	pool, sent := rb.tracedPool(t)
	cfg := rb.cfg
	cfg.Pool = pool
	rooms, err := NewRooms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close)
	return rooms, sent
}

// ownStatements are the statements of all, sent in trips round trips,
// but the live pages' announcement (the announcer's, after the commit) and
// River's notification of an inserted job: River sends at most one per
// queue per FetchCooldown, so whether a move sends it depends on the
// insert before it.
func ownStatements(all []string, trips int) (sql []string, own int) {
	own = trips
	for _, q := range all {
		if q == announceSQL || strings.Contains(q, "topic_to_notify") {
			own--
		} else {
			sql = append(sql, q)
		}
	}
	return sql, own
}

// onetapStatements are the statements of sql that name onetap_tokens.
func onetapStatements(sql []string) (out []string) {
	for _, s := range sql {
		if strings.Contains(s, "onetap_tokens") {
			out = append(out, s)
		}
	}
	return out
}

// TestOneTapPostReadsTheRoomWithTheToken: the POST marks the token used
// and reads its room, locked, in one statement: no statement of its own
// reads the room.
func TestOneTapPostReadsTheRoomWithTheToken(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	rooms, sent := rb.tracedRooms(t)
	q := rb.askB(t, "", 10, "")
	cv := q.cv
	token := q.oneTap(t, rb)
	sent.take()
	d, err := rooms.DecideOneTap(rb.ctx, token, cv.SubjectHash, true)
	if err != nil || d.Result != negotiation.ResultApplied {
		t.Fatalf("one-tap confirm: %v %+v", err, d)
	}
	sql, _ := sent.take()
	if ot := onetapStatements(sql); len(ot) != 1 || ot[0] != useOneTapSQL {
		t.Errorf("the POST's statements on onetap_tokens: %q, want useOneTapSQL alone", ot)
	}
	if slices.Contains(sql, roomSQLLocked) {
		t.Errorf("the POST read its room again")
	}
	rb.checkClean(t)
}

// TestOneTapRacingPosts: two POSTs of one link at once make one decision;
// the other says the link was used already.
func TestOneTapRacingPosts(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	const rooms = 8
	type answer struct {
		d   *Decision
		err error
	}
	answers := make([]chan answer, rooms)
	for i := range rooms {
		q := rb.askB(t, "", 8+i%8, "")
		cv := q.cv
		token := q.oneTap(t, rb)
		answers[i] = make(chan answer, 2)
		for range 2 {
			go func() {
				d, err := rb.rooms.DecideOneTap(rb.ctx, token, cv.SubjectHash, true)
				answers[i] <- answer{d, err}
			}()
		}
	}
	for i, ch := range answers {
		x, y := <-ch, <-ch
		if x.err != nil {
			x, y = y, x
		}
		if x.err != nil || x.d.Result != negotiation.ResultApplied {
			t.Errorf("room %d: no decision: %v %+v", i, x.err, x.d)
		}
		if ErrorCodeOf(y.err) != ErrConflict || !strings.Contains(ErrorMessageOf(y.err), "used already") {
			t.Errorf("room %d: the second POST: %v", i, y.err)
		}
	}
	rb.checkClean(t)
}

// TestOneTapPostThatWaitedForTheRoom: a POST whose statement waited for
// the room's lock while another move committed has the room as that move
// left it, log and all (its statement read the log from before), and
// decides on it.
func TestOneTapPostThatWaitedForTheRoom(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	q := rb.askB(t, "", 10, "")
	cv := q.cv
	token := q.oneTap(t, rb)
	// Appending events waits while stall holds room_events: a's move then
	// holds the room's lock, and the POST's statement waits for it.
	stall, err := rb.pool.Begin(rb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stall.Rollback(rb.ctx) }()
	if _, err := stall.Exec(rb.ctx, `LOCK TABLE room_events IN EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	waiting := func(n int) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			got, err := pgtest.LockWaits(rb.ctx, rb.pool)
			if err != nil {
				t.Fatal(err)
			}
			if got == n {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%d statements wait for a lock, want %d", got, n)
			}
		}
	}
	moved := make(chan error, 1)
	go func() { // a asks to cancel: the room's log grows by one
		_, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, q.ta, "cancel", "")
		moved <- err
	}()
	waiting(1)
	// The POST's statement, in a transaction this test rolls back.
	type used struct {
		row  *roomRow
		side negotiation.Side
		err  error
	}
	read := make(chan used, 1)
	tx, err := rb.pool.Begin(rb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(rb.ctx) }()
	go func() {
		row, _, side, _, _, err := useOneTap(rb.ctx, tx, secretHash(token), rb.rooms.dbMoment())
		read <- used{row, side, err}
	}()
	waiting(2)
	if err := stall.Commit(rb.ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-moved; err != nil {
		t.Fatal(err)
	}
	u := <-read
	if u.err != nil || u.side != negotiation.SideB {
		t.Fatalf("useOneTap: %v, side %q", u.err, u.side)
	}
	var seq int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT seq FROM rooms WHERE id = $1`, q.v.RoomID).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	if u.row.Seq != seq || len(u.row.log) != seq || u.row.Parties[0] == nil || u.row.Parties[1] == nil {
		t.Fatalf("the room read after a's move: seq %d, %d events, parties %v; the room is at seq %d", u.row.Seq, len(u.row.log), u.row.Parties, seq)
	}
	if err := tx.Rollback(rb.ctx); err != nil {
		t.Fatal(err)
	}
	d, err := rb.rooms.DecideOneTap(rb.ctx, token, cv.SubjectHash, true)
	if err != nil || d.Result != negotiation.ResultApplied {
		t.Fatalf("the POST: %v %+v", err, d)
	}
	rb.checkClean(t)
}

// sentOnly is take's statements.
func sentOnly(sql []string, _ int) []string { return sql }

// TestOneTapAnswerShowsTheCardAfter: the page a POST answers with is built
// from what the answer read and wrote (Decision.OneTap), without reading
// the link again; it is the card a GET of the link shows afterwards.
func TestOneTapAnswerShowsTheCardAfter(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	for _, accept := range []bool{true, false} {
		q := rb.askB(t, `{"fee":{"max":{"amount":"10.00","currency":"EUR"}}}`, 10, "20")
		cv := q.cv
		token := q.oneTap(t, rb)
		rb.advance(time.Minute + 1234567*time.Nanosecond) // a moment PostgreSQL keeps to the microsecond
		d, err := rb.rooms.DecideOneTap(rb.ctx, token, cv.SubjectHash, accept)
		if err != nil || d.OneTap == nil {
			t.Fatalf("accept %v: %v %+v", accept, err, d)
		}
		after, err := rb.rooms.OneTapCard(rb.ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		got, want := *d.OneTap, *after
		if got.TimeZone.String() != want.TimeZone.String() {
			t.Errorf("accept %v: zone %s, the link's %s", accept, got.TimeZone, want.TimeZone)
		}
		if !bytes.Equal(got.Room.Snapshot(), want.Room.Snapshot()) {
			t.Errorf("accept %v: room %s, the link's %s", accept, got.Room.Snapshot(), want.Room.Snapshot())
		}
		if got.UsedAt == nil || want.UsedAt == nil || !got.UsedAt.Equal(*want.UsedAt) {
			t.Errorf("accept %v: used at %v, the link's %v", accept, got.UsedAt, want.UsedAt)
		}
		got.TimeZone, want.TimeZone, got.Room, want.Room, got.UsedAt, want.UsedAt = nil, nil, nil, nil, nil, nil
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(gj, wj) {
			t.Errorf("accept %v: the answer's page shows\n%s\nthe link then shows\n%s", accept, gj, wj)
		}
		if got.Status == "" || got.Confirmation != nil {
			t.Errorf("accept %v: status %q, confirmation %+v", accept, got.Status, got.Confirmation)
		}
	}
	rb.checkClean(t)
}

// asked is a room a offered in (a meeting at hour, with fee; b joined
// with joinLimits) where b asked its human to approve the offer.
type asked struct {
	ta, tb string
	v      *View
	cv     *ConfirmationView
}

func (rb *roomsBundle) askB(t *testing.T, joinLimits string, hour int, fee string) asked {
	t.Helper()
	ta, tb := rb.openJoined(t, OpenInput{}, joinLimits)
	v, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(hour, fee)})
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, "approve", v.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	return asked{ta, tb, v, cv}
}

// oneTap is an email's one-tap link to the request.
func (a asked) oneTap(t *testing.T, rb *roomsBundle) string {
	t.Helper()
	token, err := rb.rooms.IssueOneTap(rb.ctx, rb.pool, a.v.RoomID, a.cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	return token
}
