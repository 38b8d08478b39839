package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// One-tap links let a party's human answer a confirmation from an email or
// a push notification: GET shows the card and changes nothing (mail
// scanners prefetch links); POST answers. A token is random (256 bits),
// stored hashed, bound to one confirmation and its hash, single-use, and
// worth nothing once the confirmation is settled.

const oneTapPrefix = "ot_"

// IssueOneTap creates a one-tap token for a pending confirmation with q. A
// notification stores its token with the statement that reads it instead
// (selectNotice); this one is for the links the tests of the packages
// that serve them make.
func (s *Rooms) IssueOneTap(ctx context.Context, q querier, roomID int64, confirmationID, channel string) (string, error) {
	token := newOneTap()
	if err := insertOneTap(ctx, q, roomID, secretHash(token), confirmationID, channel, s.now()); err != nil {
		return "", fmt.Errorf("issue one-tap token: %w", err)
	}
	return token, nil
}

// newOneTap is a new one-tap token, which is stored only as its
// secretHash.
func newOneTap() string {
	return oneTapPrefix + base64.RawURLEncoding.EncodeToString(randomBytes(32))
}

// LinkStop is why a one-tap link stopped without being used
// (onetap_tokens.stopped, migrations 00026 and 00027).
type LinkStop string

const (
	LinkStoppedLeft           LinkStop = "left"            // its person left the account; its owners answer
	LinkStoppedAccountDeleted LinkStop = "account_deleted" // the account was deleted
	// LinkStoppedRole: an owner sent it for a seat handed to the owners
	// was given a role that does not answer for such seats (migration
	// 00027).
	LinkStoppedRole LinkStop = "role"
)

// OneTap is what a one-tap link shows.
type OneTap struct {
	RoomID       int64
	Title        string
	Side         negotiation.Side
	Confirmation *negotiation.Confirmation // nil once it is no longer pending
	Status       negotiation.Result        // "" while pending; what became of it otherwise
	Why          string
	// Withdrawn: the confirmation came out void before anyone answered
	// it (the agent's new request replaced it, its terms left the table,
	// the room ended); Why says which.
	Withdrawn bool
	UsedAt    *time.Time // the link was used already (or stopped)
	// Stopped says why the link stopped unused ("": it did not).
	Stopped     LinkStop
	Room        *negotiation.Room
	Card        *negotiation.Card
	TimeZone    *time.Location
	Lang        string // the reader's language ("": none known)
	OwnerUserID *int64
	// Them is the other side's account, "" when it is a person without
	// one (the one invited, or the inviter of a person).
	Them string
}

// OneTapCard reads what a one-tap link shows, in one statement
// (selectOneTapCard): the token, its confirmation, the room and the side's
// human. It changes nothing.
func (s *Rooms) OneTapCard(ctx context.Context, token string) (*OneTap, error) {
	row, card, err := selectOneTapCard(ctx, s.pool, secretHash(token))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, s.oneTapNotValid(ctx, s.pool)
	}
	if err != nil {
		return nil, fmt.Errorf("one-tap: %w", err)
	}
	ld, err := s.restoreLax(row, card.side)
	if err != nil {
		return nil, err
	}
	if ld.sealed {
		// Only a pending cancel is shown: it needs no limits.
		var verdict negotiation.Verdict
		if p := ld.room.PendingFor(card.side); p != nil && p.ID == card.token.confirmationID {
			verdict = p.Verdict
		}
		if err := refuseSealed(ld, verdict); err != nil {
			return nil, err
		}
	}
	v, err := s.oneTap(ctx, ld, card.side, card.token.confirmationID, card.token.usedAt, card.status, card.why)
	if err != nil {
		return nil, err
	}
	if card.token.stopped != nil {
		v.Stopped = LinkStop(*card.token.stopped)
	}
	v.Withdrawn = v.Status == negotiation.ResultVoid && !card.answered
	return v, nil
}

// oneTap is what the link of a confirmation of side shows of the room ld
// (its row read with the side's human), used at usedAt (nil: not yet),
// status and why being what became of the confirmation (nil: pending).
func (s *Rooms) oneTap(ctx context.Context, ld *loaded, side negotiation.Side, confirmationID string, usedAt *time.Time, status, why *string) (*OneTap, error) {
	row := ld.row
	v := &OneTap{RoomID: row.ID, Side: side, UsedAt: usedAt, Room: ld.room, OwnerUserID: row.party(side).OwnerUserID}
	if row.Title != nil {
		v.Title = *row.Title
	}
	if status != nil {
		v.Status = negotiation.Result(*status)
	}
	if h := row.human; h != nil && h.them != nil {
		v.Them = *h.them
	}
	if why != nil {
		v.Why = *why
	}
	if c := ld.room.PendingFor(side); c != nil && c.ID == confirmationID {
		v.Confirmation = c
	}
	seen, tz, lang, err := s.seatHuman(ctx, s.pool, ld, side)
	if err != nil {
		return nil, err
	}
	v.TimeZone, v.Lang = tz, lang
	v.Card = ld.room.Card(side, seen, tz)
	return v, nil
}

// DecideOneTap answers the confirmation a one-tap link is bound to. The
// link works once; hashSeen is the subject_hash the page showed. A second
// use says what already happened.
func (s *Rooms) DecideOneTap(ctx context.Context, token string, hashSeen negotiation.SubjectHash, accept bool) (*Decision, error) {
	var d *Decision
	err := s.inTx(ctx, func(tx *roomTx) error {
		// The token is marked used, and its room read locked with its
		// confirmation's side, in one statement; a second use waits for
		// the first's lock and then finds the token used.
		// It is used at the database's moment, the statement's (or a
		// test's simulated clock): the moment its answer takes in the
		// room's log and the receipt, on every node.
		row, confirmationID, side, channel, sentTo, err := useOneTap(ctx, tx, secretHash(token), s.dbMoment())
		if errors.Is(err, pgx.ErrNoRows) {
			return s.oneTapRefused(ctx, tx, token)
		}
		if err != nil {
			return fmt.Errorf("one-tap: %w", err)
		}
		// The moment it was used, as stored.
		usedAt := s.clock(row).Truncate(time.Microsecond)
		ld, err := s.restoreLax(row, "") // decide refuses what a sealed room cannot do
		if err != nil {
			return err
		}
		// The link went to the side's human; for a side whose human left,
		// to an owner, who answers for it (Accounts.RemoveMember; their
		// link stops if they no longer may): they are who answered, in the
		// audit log and the receipt, as on the room page (DecideAsOwner).
		actor := sentTo
		if p := ld.row.party(side); p != nil && p.OwnerUserID != nil {
			actor = *p.OwnerUserID
		}
		by := answeredBy{receipt.ChannelEmail, &actor}
		if channel == "push" {
			by.channel = receipt.ChannelPush
		}
		if actor == 0 {
			by.user = nil
		}
		if d, err = s.decide(ctx, tx, ld, side, confirmationID, hashSeen, accept, by, actor); err != nil {
			return err
		}
		// What the link shows now, from what the answer read and wrote.
		status := string(d.Result)
		var why *string
		if d.Why != "" {
			why = &d.Why
		}
		d.OneTap, err = s.oneTap(ctx, ld, side, confirmationID, &usedAt, &status, why)
		return err
	})
	return d, err
}

// oneTapRefused says why a token could not be used: it is unknown, it
// was stopped (its person left the account, or the account was deleted),
// or it was used already.
func (s *Rooms) oneTapRefused(ctx context.Context, q querier, token string) error {
	ot, err := selectOneTap(ctx, q, secretHash(token))
	if errors.Is(err, pgx.ErrNoRows) {
		return s.oneTapNotValid(ctx, q)
	}
	if err != nil {
		return err
	}
	switch {
	case ot.stopped != nil && LinkStop(*ot.stopped) == LinkStoppedLeft:
		return refuse(ErrConflict, "error.link_left", "this link no longer works: its person is no longer in the account, whose owners answer instead")
	case ot.stopped != nil && LinkStop(*ot.stopped) == LinkStoppedRole:
		return refuse(ErrConflict, "data.link_role", "this link no longer works: its person's role no longer answers for this seat, whose owners answer instead")
	case ot.stopped != nil:
		return refuse(ErrConflict, "error.link_account_deleted", "this link no longer works: the account was deleted")
	case ot.usedAt != nil:
		return refuse(ErrConflict, "error.link_used", "this link was used already, at %s", Moment(*ot.usedAt))
	}
	return refuse(ErrNotFound, "error.link_not_valid", "this link is not valid")
}

// linkAfterBackupDays is how long after a restore a link not found is
// said to be perhaps one sent after the backup point.
const linkAfterBackupDays = 30

// oneTapNotValid is the refusal of a one-tap link that is not stored: it
// never was, or (when links are deleted at all) its room ended more than
// the days links are kept (RoomsConfig.OneTapKept) and the purge deleted
// it; the two cannot be told apart, so it says both. Within
// linkAfterBackupDays of a restore from a backup, it says instead that a
// link sent after the backup point no longer works (its token was lost
// with the data), and how to answer: the person holding it answered, or
// would have, and their answer is not in Taasky.
func (s *Rooms) oneTapNotValid(ctx context.Context, q querier) error {
	point, restored, err := selectRestore(ctx, q)
	if err != nil {
		return err
	}
	if point != nil && restored != nil && s.now().Sub(*restored) < linkAfterBackupDays*24*time.Hour {
		return refuse(ErrNotFound, "restore20_link_after_backup",
			"this link is not valid: it was never sent, or it was sent after %s, the moment of the backup Taasky was restored from, "+
				"and what was answered with it is lost: answer again on the room's page, or with the link of a newer email",
			Moment(*point))
	}
	days := int(s.oneTapKept / (24 * time.Hour))
	if days <= 0 {
		return refuse(ErrNotFound, "error.link_not_valid", "this link is not valid")
	}
	return refuse(ErrNotFound, "retention_link_not_valid", plural(days,
		"this link is not valid: it was never sent, or it was deleted %d day after its room ended",
		"this link is not valid: it was never sent, or it was deleted %d days after its room ended"), days)
}
