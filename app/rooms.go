package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/taasky/taasky/internal/gencache"
	"github.com/taasky/taasky/internal/ratelimit"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// Rooms is the negotiation service: open, join, propose, request and decide
// confirmations, read, list, close what is due. Every use case runs in one
// transaction that locks the room row, restores the room, asks negotiation/
// to decide, appends the events, updates the room and inserts the River jobs
// the change causes.
type Rooms struct {
	pool         *pgxpool.Pool
	river        *river.Client[pgx.Tx]
	limitsKey    sealKeys // seals the parties' limits (and invitation codes in jobs) at rest
	tokenKey     []byte
	tokenKeyPrev []byte    // the previous SECRET_KEY's token key during a rotation; nil: none
	emailKey     emailKeys // keys the hashes kept of addresses (emailHash), derived from tokenKey
	baseURL      string
	now          func() time.Time // this process's clock (RoomsConfig.Now, ProcessNow)
	// simulated: RoomsConfig.Now was given, a test's clock that stands for
	// the database's too (clock).
	simulated    bool
	pace         negotiation.Pace
	zones        sync.Map                           // time zone name → *time.Location
	sealedLogged sync.Map                           // room id → true: its limits did not open, logged (restoreLax)
	schemas      schemaCache                        // parsed schemas, by their JSON
	logCache     logCache                           // decoded log entries, by their text
	views        *gencache.Cache[string, *keptView] // Read's views, by room token hash
	// inviteCap is how many invitations one account may have emailed in
	// any 24 hours (0: no cap).
	inviteCap int
	// openCap is how many open rooms one account may have (0: no cap).
	openCap int
	// oneTapKept: RoomsConfig.OneTapKept.
	oneTapKept time.Duration
	announcer  *announcer
	waiters    waiters   // the reads waiting for their rooms to change (ReadWait)
	keys       *keyCache // the agents' keys this process keeps (Accounts'), forgotten when an account is deleted
	receipts   *receipt.Keyring
	install    installation // calendar UIDs of a person's agreed room (PersonAgreement)
	log        *slog.Logger
	// hookPace is each account's webhook jobs inserted by this process:
	// past jobs.WebhooksAtFullPriority, an account's further webhooks are
	// queued at jobs.PriorityBulk (fanOutHooks).
	hookPace *ratelimit.Buckets[int64]
}

// RoomsConfig wires a Rooms.
type RoomsConfig struct {
	Pool      *pgxpool.Pool
	River     *river.Client[pgx.Tx] // inserts and cancels jobs in the move's transaction
	LimitsKey []byte                // 32 bytes: AES-256-GCM key for limits at rest
	TokenKey  []byte                // HMAC key room tokens are derived with
	// PreviousLimitsKey and PreviousTokenKey are LimitsKey and TokenKey
	// under SECRET_KEY_PREVIOUS during a rotation of SECRET_KEY (nil:
	// none): what was sealed or derived with them still opens and is
	// found; nothing new is made with them.
	PreviousLimitsKey, PreviousTokenKey []byte
	// RetiredEmailKeys are the keys of addresses' hashes kept from the
	// SECRET_KEYs rotated before (RetiredEmailKeys).
	RetiredEmailKeys [][]byte
	BaseURL          string
	// Now, when set, is a test's clock that moves time: it replaces this
	// process's clock and the database's (clock) alike. nil: time.Now,
	// and a decision about a room's stored moments (deadline, invitation
	// expiry, cool-down) takes the database's clock, read by the statement
	// that read the room.
	Now func() time.Time
	// ProcessNow, with Now nil, replaces only this process's clock: a test
	// of a process whose clock is off the database's.
	ProcessNow func() time.Time
	// Pace caps rounds and spaces one side's counters (the zero Pace: no
	// limits). It is policy, not protocol: Replay does not apply it.
	Pace negotiation.Pace
	// InviteEmailDailyCap is how many invitations one account may have
	// emailed (negotiation_open's invite_email) in any 24 hours; 0: no cap
	// (INVITE_EMAIL_DAILY_CAP, config.Config.Mail).
	InviteEmailDailyCap int
	// OpenRoomsPerAccount is how many rooms not ended (draft or awaiting)
	// one account may have; past it negotiation_open is refused and opens
	// nothing. 0: no cap (OPEN_ROOMS_PER_ACCOUNT_MAX, config.Abuse).
	OpenRoomsPerAccount int
	// OneTapKept is how long a one-tap link is kept after its room ended
	// (RETAIN_ONETAP_DAYS, Retention): a link not found says it may be
	// older than that. 0: kept for good.
	OneTapKept time.Duration
	// Log takes what goes wrong after a change committed, and the
	// deletion of accounts (nil: slog.Default).
	Log *slog.Logger
	// Accounts, when set, is the process's accounts service: a deleted
	// account's keys are forgotten in its cache at once.
	Accounts *Accounts
	// Receipts signs agreed rooms' receipts (nil: Receipt refuses).
	Receipts *receipt.Keyring
	// WaitsPerAgent and WaitsPerAccount cap the reads waiting at once in
	// this process (ReadWait) for one agent and for one account's agents
	// (0: DefaultWaitsPerAgent, DefaultWaitsPerAccount).
	WaitsPerAgent, WaitsPerAccount int
}

// hookPaceAccounts bounds the accounts hookPace keeps a bucket for (a
// full bucket is dropped as moves come; past it the one idle longest).
const hookPaceAccounts = 100_000

// NewRooms builds the service.
func NewRooms(c RoomsConfig) (*Rooms, error) {
	aead, err := newSealKeys(c.LimitsKey, c.PreviousLimitsKey)
	if err != nil {
		return nil, fmt.Errorf("limits key: %w", err)
	}
	simulated := c.Now != nil
	switch {
	case c.ProcessNow != nil && !simulated:
		c.Now = c.ProcessNow
	case c.Now == nil:
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	if len(c.TokenKey) < 32 || (c.PreviousTokenKey != nil && len(c.PreviousTokenKey) < 32) {
		return nil, errors.New("token key: at least 32 bytes")
	}
	var keys *keyCache
	if c.Accounts != nil {
		keys = c.Accounts.keys
	}
	r := &Rooms{pool: c.Pool, keys: keys, log: c.Log, river: c.River, limitsKey: aead, tokenKey: c.TokenKey, tokenKeyPrev: c.PreviousTokenKey, emailKey: newEmailKeys(c.TokenKey, c.PreviousTokenKey, c.RetiredEmailKeys...), baseURL: c.BaseURL, now: c.Now, simulated: simulated, pace: c.Pace,
		inviteCap: c.InviteEmailDailyCap, openCap: c.OpenRoomsPerAccount, oneTapKept: c.OneTapKept, announcer: newAnnouncer(c.Pool, c.Log), receipts: c.Receipts,
		schemas: newSchemaCache(schemasKept), logCache: newLogCache(logCacheSize), views: newViewCache()}
	r.waiters.agentCap, r.waiters.accountCap = c.WaitsPerAgent, c.WaitsPerAccount
	r.hookPace = ratelimit.New[int64](jobs.WebhooksAtFullPriority, hookPaceAccounts, time.Now)
	return r, nil
}

// clock is the "now" of a decision about the room row read: the
// database's clock when the statement that read it began
// (roomRow.At), not this process's, so that every process (web nodes,
// workers) decides about a deadline, an invitation's expiry or a
// cool-down at the same moment, whatever its own clock says; a test's
// simulated clock (RoomsConfig.Now) instead when one is set.
func (s *Rooms) clock(row *roomRow) time.Time {
	if s.simulated || row == nil || row.At.IsZero() {
		return s.now()
	}
	return row.At.UTC()
}

// dbMoment is the "now" a statement that decides by its own clock is
// given (momentFor): the database's, unless a test's clock is simulated
// (RoomsConfig.Now).
func (s *Rooms) dbMoment() *time.Time { return momentFor(s.simulated, s.now) }

// momentFor is the "now" given to a statement that decides by its own
// clock: nil, for the database's (statement_timestamp()), which every
// process shares whatever its own clock says; with simulated, a test's
// clock now instead, which stands for the database's too.
func momentFor(simulated bool, now func() time.Time) *time.Time {
	if !simulated {
		return nil
	}
	t := now()
	return &t
}

// fromProtocol turns the protocol's refusals into service errors, which
// adapters show as they are.
func fromProtocol(err error) error {
	var e *negotiation.Error
	if errors.As(err, &e) {
		if e.Code == negotiation.CodeRefused {
			return &Error{Code: ErrConflict, Message: e.Message, Words: e.Words}
		}
		return &Error{Code: ErrInvalid, Message: e.Message, Faults: e.Faults, Words: e.Words}
	}
	return err
}

// readOnly is how a read runs: one snapshot for all its statements
// (REPEATABLE READ), so a view never mixes a room before a move with the
// log after it. Read-only transactions at this level never fail to
// serialize.
var readOnly = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// Close waits until the rooms changed so far were announced to the live
// pages; call it before closing the pool.
func (s *Rooms) Close() { s.announcer.flush() }

// roomTx is a transaction that may change rooms (commit): it keeps their
// ids, to announce once the transaction has committed.
type roomTx struct {
	pgx.Tx
	changed []int64
}

// sendWrites sends a change's writes: with the transaction's next
// statement or its COMMIT when it is a pipeTx, else at once.
func (t *roomTx) sendWrites(ctx context.Context, b *pgx.Batch) error {
	if p, ok := t.Tx.(*pipeTx); ok {
		return p.hold(b)
	}
	return t.SendBatch(ctx, b).Close()
}

// inTx runs fn in one transaction (a pipeTx: BEGIN with the first
// statement, the change's writes with COMMIT) and, once it committed,
// announces the rooms it changed to the live pages (announcer).
func (s *Rooms) inTx(ctx context.Context, fn func(tx *roomTx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire a connection: %w", err)
	}
	defer conn.Release()
	tx := &pipeTx{conn: conn}
	rt := &roomTx{Tx: tx}
	if err := fn(rt); err != nil {
		_ = tx.Rollback(ctx)
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	if len(rt.changed) > 0 {
		s.announcer.add(rt.changed)
	}
	return nil
}
