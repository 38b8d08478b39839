package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// sessionNow is a sessions statement's "now": its parameter n, a test's
// simulated clock, or (NULL) the database's clock, which every process
// shares (Accounts.dbMoment).
func sessionNow(n string) string { return `coalesce(` + n + `::timestamptz, statement_timestamp())` }

// insertSession adds a session of user at at (nil: the database's clock;
// it returns the session's moments), and ends in the same statement the
// user's expired sessions and, beyond the newest SessionsPerUser-1 live
// ones, the oldest (the statement's DELETE does not see the row it
// inserts). Two sign-ins at once may leave one more: the next trims it.
func insertSession(ctx context.Context, q querier, userID int64, hash []byte, at *time.Time, s *Session) error {
	err := q.QueryRow(ctx, `WITH gone AS (
			DELETE FROM user_sessions WHERE user_id = $1 AND (expires_at <= `+sessionNow("$3")+` OR id IN (
				SELECT id FROM user_sessions WHERE user_id = $1 AND expires_at > `+sessionNow("$3")+`
				ORDER BY created_at DESC, id DESC OFFSET $7))
		)
		INSERT INTO user_sessions (user_id, token_hash, created_at, last_seen_at, expires_at, browser, platform)
		VALUES ($1, $2, `+sessionNow("$3")+`, `+sessionNow("$3")+`, `+sessionNow("$3")+` + make_interval(secs => $4), $5, $6)
		RETURNING id, created_at, last_seen_at, expires_at`,
		userID, hash, at, SessionIdle.Seconds(), s.Device.Browser, s.Device.Platform, SessionsPerUser-1).Scan(&s.ID, &s.CreatedAt, &s.LastSeenAt, &s.ExpiresAt)
	if err != nil {
		return fmt.Errorf("insertSession %d: %w", userID, err)
	}
	return nil
}

// sessionUserSQL reads the user of a live session by its token's hash
// ($1) at $2 (sessionNow), and renews the session when its last use is
// more than $3 seconds older: its last use becomes $2, its end $2 plus $4
// seconds or its sign-in plus $5 seconds, whichever is first. One
// statement: the common request (used within the last few minutes)
// writes nothing, and takes no lock. The renewed end is the UPDATE's
// (seen), else the row's as it was.
var sessionUserSQL = `WITH s AS (
		SELECT id AS session_id, user_id, created_at AS session_created, last_seen_at AS session_seen,
			expires_at AS session_expires, browser, platform
		FROM user_sessions WHERE token_hash = $1 AND expires_at > ` + sessionNow("$2") + `
	), seen AS (
		UPDATE user_sessions SET last_seen_at = ` + sessionNow("$2") + `,
			expires_at = least(` + sessionNow("$2") + ` + make_interval(secs => $4), created_at + make_interval(secs => $5))
		WHERE token_hash = $1 AND expires_at > ` + sessionNow("$2") + ` AND last_seen_at < ` + sessionNow("$2") + ` - make_interval(secs => $3)
		RETURNING last_seen_at, expires_at
	)
	SELECT ` + userColumns + `, session_id, session_created, coalesce((SELECT last_seen_at FROM seen), session_seen),
		coalesce((SELECT expires_at FROM seen), session_expires), browser, platform, ` + sessionNow("$2") + `
	FROM s JOIN users ON users.id = s.user_id`

func selectSessionUser(ctx context.Context, q querier, hash []byte, now *time.Time) (SignedIn, error) {
	var in SignedIn
	s := &in.Session
	err := q.QueryRow(ctx, sessionUserSQL, hash, now, SessionSeenEvery.Seconds(), SessionIdle.Seconds(), SessionMaxLife.Seconds()).Scan(
		&in.User.ID, &in.User.Email, &in.User.OIDCIssuer, &in.User.OIDCSubject, &in.User.TimeZone, &in.User.CreatedAt,
		&in.User.EmailVerified, &in.User.Language, &in.User.OIDCLocale, &in.User.PageLanguage,
		&s.ID, &s.CreatedAt, &s.LastSeenAt, &s.ExpiresAt, &s.Device.Browser, &s.Device.Platform, &in.At)
	if err != nil {
		return SignedIn{}, fmt.Errorf("selectSessionUser: %w", err)
	}
	return in, nil
}

// selectSessions lists the user's sessions live at now (sessionNow), the
// last used first.
func selectSessions(ctx context.Context, q querier, userID int64, now *time.Time) ([]Session, error) {
	rows, _ := q.Query(ctx, `SELECT id, browser, platform, created_at, last_seen_at, expires_at FROM user_sessions
		WHERE user_id = $1 AND expires_at > `+sessionNow("$2")+` ORDER BY last_seen_at DESC, id DESC`, userID, now)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Session, error) {
		var s Session
		err := r.Scan(&s.ID, &s.Device.Browser, &s.Device.Platform, &s.CreatedAt, &s.LastSeenAt, &s.ExpiresAt)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectSessions %d: %w", userID, err)
	}
	return out, nil
}

func deleteSessionByToken(ctx context.Context, q querier, hash []byte) error {
	if _, err := q.Exec(ctx, `DELETE FROM user_sessions WHERE token_hash = $1`, hash); err != nil {
		return fmt.Errorf("deleteSessionByToken: %w", err)
	}
	return nil
}

// deleteSession deletes the user's session id unless it is keep's.
func deleteSession(ctx context.Context, q querier, userID, id int64, keep []byte) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM user_sessions WHERE user_id = $1 AND id = $2 AND token_hash <> $3`, userID, id, keep)
	if err != nil {
		return 0, fmt.Errorf("deleteSession %d: %w", userID, err)
	}
	return tag.RowsAffected(), nil
}

func deleteOtherSessions(ctx context.Context, q querier, userID int64, keep []byte) (int, error) {
	tag, err := q.Exec(ctx, `DELETE FROM user_sessions WHERE user_id = $1 AND token_hash <> $2`, userID, keep)
	if err != nil {
		return 0, fmt.Errorf("deleteOtherSessions %d: %w", userID, err)
	}
	return int(tag.RowsAffected()), nil
}

// deleteUserSessions ends every session of the user.
func deleteUserSessions(ctx context.Context, q querier, userID int64) error {
	if _, err := q.Exec(ctx, `DELETE FROM user_sessions WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("deleteUserSessions %d: %w", userID, err)
	}
	return nil
}

// deleteUsersSessions ends every session of the users.
func deleteUsersSessions(ctx context.Context, q querier, userIDs []int64) error {
	if _, err := q.Exec(ctx, `DELETE FROM user_sessions WHERE user_id = ANY($1)`, userIDs); err != nil {
		return fmt.Errorf("deleteUsersSessions: %w", err)
	}
	return nil
}

// purgeExpiredSessions deletes at most limit sessions that expired
// before before (sessionNow), and says how many.
func purgeExpiredSessions(ctx context.Context, q querier, before *time.Time, limit int) (int, error) {
	tag, err := q.Exec(ctx, `DELETE FROM user_sessions WHERE id IN (
		SELECT id FROM user_sessions WHERE expires_at < `+sessionNow("$1")+` ORDER BY expires_at LIMIT $2)`, before, limit)
	if err != nil {
		return 0, fmt.Errorf("purgeExpiredSessions: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// selectMySessions are the user's live sessions for their data download.
func selectMySessions(ctx context.Context, q querier, userID int64, now *time.Time) ([]MySession, error) {
	ss, err := selectSessions(ctx, q, userID, now)
	if err != nil {
		return nil, err
	}
	out := make([]MySession, len(ss))
	for i, s := range ss {
		out[i] = MySession{Browser: s.Device.Browser, Platform: s.Device.Platform, CreatedAt: rfc3339(s.CreatedAt), LastSeenAt: rfc3339(s.LastSeenAt)}
	}
	return out, nil
}
