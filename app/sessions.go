package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// A person's sessions: one per browser they signed in with (migration
// 00040). The browser keeps the session's token (in a sealed cookie); the
// database keeps only its hash, with what the person needs to tell their
// sessions apart (the browser and its system, when it began, when it was
// last used) and nothing more: no address.
//
// A session lives SessionIdle after its last use, and never more than
// SessionMaxLife after the sign-in, by the database's clock (a session's
// moments and its end are the same on every node, whatever their clocks
// say); each request reads the person with
// their session in one statement (SessionUser), which renews it at most
// once per SessionSeenEvery. Ending one (EndSession, EndOtherSession,
// EndOtherSessions) or all (EndSessions, and a removal from an account,
// an account's deletion, a relink) deletes its row; the database then
// tells the live pages of its browser (taasky_access), which end.

const (
	// SessionIdle: a session not used for this long has ended.
	SessionIdle = 30 * 24 * time.Hour
	// SessionMaxLife: a session ends this long after its sign-in, however
	// much it is used (the person signs in again).
	SessionMaxLife = 90 * 24 * time.Hour
	// SessionSeenEvery: a session's last use is written at most this
	// often, so that most requests write nothing.
	SessionSeenEvery = 5 * time.Minute
	// SessionsPerUser bounds a person's live sessions: the oldest ends
	// when a new one starts beyond it.
	SessionsPerUser = 50
	// sessionDeviceMax bounds each of a session's device words.
	sessionDeviceMax = 40
)

// Session is one of a person's sign-ins, as Settings lists it.
type Session struct {
	ID         int64 // the row's, for a form to name it; never the token
	Device     SessionDevice
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
}

// SessionDevice is the browser a session began in, as its User-Agent
// named it: "" for what it did not say.
type SessionDevice struct {
	Browser  string // e.g. "Firefox"
	Platform string // e.g. "Linux"
}

// SignedIn is a person with the session a request came with.
type SignedIn struct {
	User    User
	Session Session
	// At is the database's moment of the read (the clock the session's
	// moments are on; a test's simulated one): how long the session has
	// left is Session.ExpiresAt less At, whatever this process's clock
	// says.
	At time.Time
}

// StartSession signs user in on a browser (device): it returns the
// session's token, which the browser keeps and sends back (SessionUser).
// Beyond SessionsPerUser live sessions, the oldest ends; the person's
// expired ones are deleted on the way.
func (a *Accounts) StartSession(ctx context.Context, userID int64, device SessionDevice) (token string, s Session, err error) {
	token = base64.RawURLEncoding.EncodeToString(randomBytes(32))
	s = Session{Device: SessionDevice{Browser: clip(device.Browser), Platform: clip(device.Platform)}}
	if err = insertSession(ctx, a.pool, userID, secretHash(token), a.dbMoment(), &s); err != nil {
		return "", Session{}, fmt.Errorf("start session: %w", err)
	}
	return token, s, nil
}

// dbMoment is the "now" of a statement about sessions (momentFor): the
// database's, unless a test's clock is simulated (Accounts.now).
func (a *Accounts) dbMoment() *time.Time { return momentFor(a.simulated, a.now) }

// clip bounds a device word to sessionDeviceMax characters.
func clip(s string) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "")
	if utf8.RuneCountInString(s) > sessionDeviceMax {
		s = string([]rune(s)[:sessionDeviceMax])
	}
	return s
}

// SessionUser is the person whose live session token is, with the session:
// one statement, which renews the session (its last use, its end) when
// its last use was written more than SessionSeenEvery ago. ErrNotFound:
// no such session, or it ended or expired (sign in again).
func (a *Accounts) SessionUser(ctx context.Context, token string) (SignedIn, error) {
	if token == "" {
		return SignedIn{}, errSessionGone()
	}
	in, err := selectSessionUser(ctx, a.pool, secretHash(token), a.dbMoment())
	if errors.Is(err, pgx.ErrNoRows) {
		return SignedIn{}, errSessionGone()
	}
	if err != nil {
		return SignedIn{}, fmt.Errorf("session user: %w", err)
	}
	return in, nil
}

// Sessions lists the person's live sessions, the last used first.
func (a *Accounts) Sessions(ctx context.Context, userID int64) ([]Session, error) {
	ss, err := selectSessions(ctx, a.pool, userID, a.dbMoment())
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	return ss, nil
}

func errSessionGone() error {
	return refuse(ErrNotFound, "sessions19_error.session_gone", "session: that session has ended already")
}

// EndSession ends the session of token (a sign-out on its browser); an
// ended one is no error.
func (a *Accounts) EndSession(ctx context.Context, token string) error {
	if err := deleteSessionByToken(ctx, a.pool, secretHash(token)); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// EndOtherSession ends the person's session id, which is not the one
// their request came with (keepToken's). ErrNotFound: none of theirs is
// live by that id (ended already, say).
func (a *Accounts) EndOtherSession(ctx context.Context, userID, id int64, keepToken string) error {
	n, err := deleteSession(ctx, a.pool, userID, id, secretHash(keepToken))
	if err == nil && n == 0 {
		err = errSessionGone()
	}
	if err != nil {
		return fmt.Errorf("end other session: %w", err)
	}
	return nil
}

// EndOtherSessions ends every session of the person but keepToken's, and
// says how many.
func (a *Accounts) EndOtherSessions(ctx context.Context, userID int64, keepToken string) (int, error) {
	n, err := deleteOtherSessions(ctx, a.pool, userID, secretHash(keepToken))
	if err != nil {
		return 0, fmt.Errorf("end other sessions: %w", err)
	}
	return n, nil
}

// EndSessions ends every session of the user, in every browser.
func (a *Accounts) EndSessions(ctx context.Context, userID int64) error {
	if err := deleteUserSessions(ctx, a.pool, userID); err != nil {
		return fmt.Errorf("end sessions: %w", err)
	}
	return nil
}
