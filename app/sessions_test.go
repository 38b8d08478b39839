package app

import (
	"encoding/hex"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/taasky/taasky/jobs"
)

// sessionBundle is an account's owner, sam, whose sessions a test starts
// on a clock of its own.
type sessionBundle struct {
	*roomsBundle
	acc *Accounts
	sam User
	now time.Time
}

func setupSessions(t *testing.T) *sessionBundle {
	t.Helper()
	rb := setupRooms(t)
	sb := &sessionBundle{roomsBundle: rb, acc: NewAccounts(rb.pool), now: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)}
	sb.acc.now, sb.acc.simulated = func() time.Time { return sb.now }, true
	if _, err := sb.acc.CreateAccount(rb.ctx, "sam", "Sam", "sam@example.test"); err != nil {
		t.Fatal(err)
	}
	var err error
	if sb.sam, err = sb.acc.UserByEmail(rb.ctx, "sam@example.test"); err != nil {
		t.Fatal(err)
	}
	return sb
}

func (sb *sessionBundle) start(t *testing.T, browser string) (string, Session) {
	t.Helper()
	token, s, err := sb.acc.StartSession(sb.ctx, sb.sam.ID, SessionDevice{Browser: browser, Platform: "Linux"})
	if err != nil {
		t.Fatal(err)
	}
	return token, s
}

// row is the session's row as stored: its last use, its end, and the
// transaction that last wrote it (xmin: a read that writes nothing leaves
// it as it was).
func (sb *sessionBundle) row(t *testing.T, id int64) (seen, expires time.Time, xmin string) {
	t.Helper()
	if err := sb.pool.QueryRow(sb.ctx, `SELECT last_seen_at, expires_at, xmin::text FROM user_sessions WHERE id = $1`, id).
		Scan(&seen, &expires, &xmin); err != nil {
		t.Fatal(err)
	}
	return seen, expires, xmin
}

// TestSessionRenewsAndEnds: a session used within its life lives
// SessionIdle past its last use, never past SessionMaxLife after the
// sign-in; a use within SessionSeenEvery of the last one written writes
// nothing; a session not used for SessionIdle has ended. Before, a
// session ended 14 days after the sign-in however much it was used.
func TestSessionRenewsAndEnds(t *testing.T) {
	t.Parallel()
	sb := setupSessions(t)
	t0 := sb.now
	token, s := sb.start(t, "Firefox")
	if !s.ExpiresAt.Equal(t0.Add(SessionIdle)) {
		t.Fatalf("a new session ends %v, want %v", s.ExpiresAt, t0.Add(SessionIdle))
	}
	_, _, xmin := sb.row(t, s.ID)
	use := func(at time.Time) (SignedIn, error) {
		t.Helper()
		sb.now = at
		return sb.acc.SessionUser(sb.ctx, token)
	}

	// A minute later: read, nothing written.
	in, err := use(t0.Add(time.Minute))
	if err != nil || in.User.ID != sb.sam.ID || in.User.Email != "sam@example.test" || in.Session.ID != s.ID ||
		in.Session.Device != (SessionDevice{"Firefox", "Linux"}) {
		t.Fatalf("the session's user: %+v %v", in, err)
	}
	if seen, _, x := sb.row(t, s.ID); x != xmin || !seen.Equal(t0) {
		t.Errorf("a use a minute after the last wrote the row (last use %v)", seen)
	}

	// Ten minutes later: renewed, once.
	at := t0.Add(10 * time.Minute)
	if in, err = use(at); err != nil || !in.Session.ExpiresAt.Equal(at.Add(SessionIdle)) || !in.Session.LastSeenAt.Equal(at) {
		t.Fatalf("renewed: %+v %v, want to end %v", in.Session, err, at.Add(SessionIdle))
	}
	seen, expires, x := sb.row(t, s.ID)
	if x == xmin || !seen.Equal(at) || !expires.Equal(at.Add(SessionIdle)) {
		t.Errorf("the renewal stored last use %v, end %v", seen, expires)
	}
	xmin = x
	if _, err = use(at.Add(SessionSeenEvery - time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, _, x := sb.row(t, s.ID); x != xmin {
		t.Error("a use within SessionSeenEvery of the renewal wrote again")
	}

	// Used every 29 days, it lives until 90 days after the sign-in.
	for at = at.Add(29 * 24 * time.Hour); at.Before(t0.Add(SessionMaxLife)); at = at.Add(29 * 24 * time.Hour) {
		if in, err = use(at); err != nil {
			t.Fatalf("used at day %v: %v", at.Sub(t0).Hours()/24, err)
		}
		if !in.Session.ExpiresAt.After(at) || in.Session.ExpiresAt.After(t0.Add(SessionMaxLife)) {
			t.Fatalf("renewed at day %v to end %v", at.Sub(t0).Hours()/24, in.Session.ExpiresAt)
		}
	}
	if _, err = use(t0.Add(SessionMaxLife)); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("the session 90 days after the sign-in: %v, want ended", err)
	}

	// Another, not used for SessionIdle: ended.
	sb.now = t0
	idle, _ := sb.start(t, "Chrome")
	sb.now = t0.Add(SessionIdle)
	if _, err := sb.acc.SessionUser(sb.ctx, idle); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("a session unused for 30 days: %v, want ended", err)
	}
	if _, err := sb.acc.SessionUser(sb.ctx, "no-such-token"); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("an unknown token: %v", err)
	}
}

// TestSessionUserIsOneStatement: the check every dashboard request makes
// reads the person with their live session, and renews it, in one
// statement; the common request (used within the last few minutes)
// writes nothing (TestSessionRenewsAndEnds: the row's xmin).
func TestSessionUserIsOneStatement(t *testing.T) {
	t.Parallel()
	sb := setupSessions(t)
	token, _ := sb.start(t, "Safari")
	pool, sent := sb.tracedPool(t)
	traced := NewAccounts(pool)
	traced.now, traced.simulated = sb.acc.now, true
	for _, step := range []struct {
		what  string
		after time.Duration
	}{{"a use", time.Minute}, {"a use that renews", 10 * time.Minute}, {"a use just after", 11 * time.Minute}} {
		sb.now = sb.now.Add(step.after)
		sent.take()
		if _, err := traced.SessionUser(sb.ctx, token); err != nil {
			t.Fatal(err)
		}
		if sql, trips := sent.take(); len(sql) != 1 || trips != 1 {
			t.Errorf("%s: %d statements in %d round trips, want 1:\n%v", step.what, len(sql), trips, sql)
		}
	}
}

// TestSessionsEndOneByOne: signing out of a browser ends its session only;
// a person ends another of theirs, or every other, never someone else's;
// at most SessionsPerUser live at once, the oldest ending first.
func TestSessionsEndOneByOne(t *testing.T) {
	t.Parallel()
	sb := setupSessions(t)
	laptop, _ := sb.start(t, "Firefox")
	phone, phoneS := sb.start(t, "Safari")
	library, _ := sb.start(t, "Edge")
	live := func() int {
		t.Helper()
		ss, err := sb.acc.Sessions(sb.ctx, sb.sam.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(ss)
	}
	alive := func(token string) bool {
		_, err := sb.acc.SessionUser(sb.ctx, token)
		return err == nil
	}
	if err := sb.acc.EndSession(sb.ctx, library); err != nil {
		t.Fatal(err)
	}
	if alive(library) || !alive(laptop) || !alive(phone) || live() != 2 {
		t.Fatalf("after the library's sign-out: library %v, laptop %v, phone %v, %d live", alive(library), alive(laptop), alive(phone), live())
	}
	// Someone else cannot end sam's phone, nor sam their own browser this way.
	if _, err := sb.acc.CreateAccount(sb.ctx, "eve", "Eve", "eve@example.test"); err != nil {
		t.Fatal(err)
	}
	eve, _ := sb.acc.UserByEmail(sb.ctx, "eve@example.test")
	if err := sb.acc.EndOtherSession(sb.ctx, eve.ID, phoneS.ID, ""); ErrorCodeOf(err) != ErrNotFound || !alive(phone) {
		t.Fatalf("eve ending sam's phone: %v, alive %v", err, alive(phone))
	}
	if err := sb.acc.EndOtherSession(sb.ctx, sb.sam.ID, phoneS.ID, phone); ErrorCodeOf(err) != ErrNotFound || !alive(phone) {
		t.Fatalf("ending this browser's own as another: %v", err)
	}
	if err := sb.acc.EndOtherSession(sb.ctx, sb.sam.ID, phoneS.ID, laptop); err != nil || alive(phone) || !alive(laptop) {
		t.Fatalf("the lost phone ended from the laptop: %v, phone %v, laptop %v", err, alive(phone), alive(laptop))
	}
	tokens := []string{laptop}
	for range SessionsPerUser {
		sb.now = sb.now.Add(time.Second)
		tok, _ := sb.start(t, "Chrome")
		tokens = append(tokens, tok)
	}
	if n := live(); n != SessionsPerUser || alive(laptop) || !alive(tokens[1]) {
		t.Fatalf("after %d more sign-ins: %d live, the oldest alive %v", SessionsPerUser, n, alive(laptop))
	}
	if n, err := sb.acc.EndOtherSessions(sb.ctx, sb.sam.ID, tokens[5]); err != nil || n != SessionsPerUser-1 || live() != 1 || !alive(tokens[5]) {
		t.Fatalf("sign out everywhere else: %d %v, %d live", n, err, live())
	}
	if err := sb.acc.EndSessions(sb.ctx, sb.sam.ID); err != nil || live() != 0 {
		t.Fatalf("every session ended: %v, %d live", err, live())
	}
}

// TestSessionsPurged: the hourly purge (purge_expired) deletes the
// sessions past their end, and only those.
func TestSessionsPurged(t *testing.T) {
	t.Parallel()
	sb := setupSessions(t)
	t0 := sb.now
	_, oldS := sb.start(t, "Firefox")
	sb.now = t0.Add(20 * 24 * time.Hour)
	_, freshS := sb.start(t, "Chrome")
	at := t0.Add(SessionIdle + time.Hour)
	w := &jobs.PurgeWorker{Tokens: NewOAuth(sb.pool), Sessions: NewRetention(sb.pool, RetentionPeriods{}), Now: func() time.Time { return at }}
	if err := w.Work(sb.ctx, &river.Job[jobs.PurgeArgs]{}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	rows, _ := sb.pool.Query(sb.ctx, `SELECT id FROM user_sessions WHERE user_id = $1`, sb.sam.ID)
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		ids = append(ids, id)
	}
	if rows.Err() != nil || len(ids) != 1 || ids[0] != freshS.ID || oldS.ID == freshS.ID {
		t.Fatalf("the sessions left: %v %v", ids, rows.Err())
	}
}

// sessionNeedle is how a session's token is found in a table: its hash,
// as a bytea's text spells it.
func sessionNeedle(token string) string { return hex.EncodeToString(secretHash(token)) }
