package app

import (
	"context"
	"encoding/json"
	"errors"
	"net/mail"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/unicode/norm"

	"github.com/taasky/taasky/negotiation"
)

// OpenInput is an agent's negotiation_open.
type OpenInput struct {
	Schema     json.RawMessage
	Limits     json.RawMessage
	Subject    json.RawMessage
	Options    []json.RawMessage
	Slots      []json.RawMessage
	Preapprove bool
	Title      string
	Deadline   *time.Time
	// InviteEmail, if set, is emailed the invitation (who invites, the
	// title, the link, the deadline), by a job inserted with the room;
	// past the account's daily cap the open is refused (checkInviteCap).
	InviteEmail string
}

// OpenResult answers an open: the opener's room token and the invitation.
type OpenResult struct {
	RoomToken  string
	InviteCode string
	InviteURL  string
	Warnings   []string
	View       *View
}

// Open creates a room for the agent's account, with its opening terms if
// any, schedules the invitation's expiry and the deadline's lapse, and, if
// asked, the invitation's email.
func (s *Rooms) Open(ctx context.Context, agent Agent, in OpenInput) (*OpenResult, error) {
	inviteEmail := ""
	if in.InviteEmail != "" {
		var err error
		if inviteEmail, err = checkInviteEmail(in.InviteEmail); err != nil {
			return nil, err
		}
	}
	var title *string
	if in.Title != "" {
		if err := negotiation.CheckTitle(in.Title); err != nil {
			return nil, fromProtocol(err)
		}
		title = &in.Title
	}
	// A preapproval asks the opener's human: whether a message reaches
	// them is the protocol's to record, from the recipients its fan-out
	// then addresses (read here, not again in the transaction).
	var recips map[int64]*recipient
	announce := negotiation.Announced
	if in.Preapprove {
		var err error
		if recips, err = selectRecipients(ctx, s.pool, []int64{agent.OwnerUserID}); err != nil {
			return nil, err
		}
		announce = announcementTo(recips, agent.OwnerUserID)
	}
	now := s.now()
	req := negotiation.OpenRequest{
		Schema: in.Schema, Limits: in.Limits, Subject: in.Subject, Options: in.Options, Slots: in.Slots,
		Preapprove: in.Preapprove, Deadline: in.Deadline, PreapprovalID: newConfirmationID(), Title: in.Title,
		PreapprovalAnnouncement: announce, Fold: norm.NFKC.String,
	}
	// A deadline's days are counted on the opener's human's calendar. A
	// given one further than MaxDeadline's 24-hour days may still be within
	// its days there (a clock goes back between): their zone is read first,
	// a statement only such opens make. For the default deadline the zone
	// comes with the room's insert, below.
	if negotiation.GivenDeadlineNeedsZone(in.Deadline, now) {
		zone, err := selectUserZone(ctx, s.pool, agent.OwnerUserID)
		if err != nil {
			return nil, err
		}
		req.Zone = s.zone(zone)
	}
	room, events, warnings, err := negotiation.Open(req, now)
	// A given deadline is ahead, and within MaxDeadline, by the database's
	// clock at the room's insert (below), which this process's may be off:
	// one it refuses by less than openClockLeeway either way goes on to
	// the insert, where the database's moment decides.
	checkAtInsert, builtAt := false, now // builtAt: the moment room was built at
	if err != nil && in.Deadline != nil && !s.simulated {
		for _, at := range []time.Time{now.Add(-openClockLeeway), now.Add(openClockLeeway)} {
			if r, e, w, err2 := negotiation.Open(req, at); err2 == nil {
				room, events, warnings, err, checkAtInsert, builtAt = r, e, w, nil, true, at
				break
			}
		}
	}
	if err != nil {
		return nil, fromProtocol(err)
	}
	code := newInviteCode()
	res := &OpenResult{InviteCode: code, InviteURL: s.baseURL + "/i/" + code, Warnings: warnings}
	err = s.inTx(ctx, func(tx *roomTx) error {
		if inviteEmail != "" {
			// The room will hold the address: an erasure of it running
			// now is waited for, first (store_profile.go).
			lock := &pgx.Batch{}
			queueAddressShare(lock, inviteEmail)
			if err := tx.sendWrites(ctx, lock); err != nil {
				return err
			}
			if err := s.checkInviteCap(ctx, tx, agent.AccountID, now); err != nil {
				return err
			}
		}
		draft := &negotiation.Room{State: negotiation.StateDraft, Deadline: room.Deadline, ExpiresAt: room.ExpiresAt}
		var invited *string // where a person who answers in the browser is told what happens, unless they say otherwise
		if inviteEmail != "" {
			invited = &inviteEmail
		}
		id, human, hooks, at, err := insertRoom(ctx, tx, agent.AccountID, agent.OwnerUserID, secretHash(code), title, invited, draft, builtAt, s.openCap, !s.simulated)
		if errors.Is(err, errOpenRoomsFull) {
			return s.openRoomsFull()
		}
		if err != nil {
			return err
		}
		// The room opens at the database's moment (the insert's), which
		// this process's clock may be off from: the invitation's 72 hours,
		// the default deadline and the check that a given one is ahead
		// count from it (Rooms.clock), as every later decision does.
		opened := &roomRow{At: at}
		again := checkAtInsert || !s.clock(opened).Equal(now)
		now = s.clock(opened)
		if req.Zone == nil && negotiation.GivenDeadlineNeedsZone(in.Deadline, now) {
			// Past MaxDeadline's 24-hour days at the database's moment
			// though not at this process's: the zone came with the insert.
			req.Zone, again = s.zoneOf(human.zone), true
		}
		if in.Deadline == nil {
			// The default deadline on the human's calendar, when a clock
			// change between makes it differ; the commit writes it.
			if z := s.zoneOf(human.zone); !negotiation.DefaultDeadlineIn(now, z).Equal(room.Deadline) {
				req.Zone, again = z, true
			}
		}
		if again {
			if room, events, warnings, err = negotiation.Open(req, now); err != nil {
				return fromProtocol(err)
			}
			res.Warnings = warnings
		}
		p := &partyRow{Side: negotiation.SideA, AccountID: &agent.AccountID, AgentID: &agent.ID,
			OwnerUserID: &agent.OwnerUserID, TokenSalt: randomBytes(16),
			LimitsEnc: s.sealLimits(id, "a", room.Party(negotiation.SideA).Limits.Raw()),
			SchemaFP:  string(room.Party(negotiation.SideA).Schema.Fingerprint())}
		res.RoomToken = s.roomToken(id, "a", p.TokenSalt)
		row := &roomRow{At: at, ID: id, AccountID: agent.AccountID, Title: title, Parties: [2]*partyRow{p}, recips: recips}
		if err := row.setHookTargets(hooks); err != nil {
			return err
		}
		row.setHuman(negotiation.SideA, human) // nothing seen: nobody across yet
		ld := &loaded{row: row, room: &negotiation.Room{}}
		tokenHash := secretHash(res.RoomToken)
		seat := func(b *pgx.Batch) { queueParty(b, id, p, tokenHash, now) }
		if err := s.commit(ctx, tx, ld, change{next: room, events: events, queue: []func(*pgx.Batch){seat}}); err != nil {
			return err
		}
		if inviteEmail != "" {
			if err := s.enqueueInvite(ctx, tx, agent.AccountID, id, agent.OwnerUserID, inviteEmail, code); err != nil {
				return err
			}
		}
		res.View, err = s.view(ctx, tx, ld, negotiation.SideA)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// openClockLeeway is how far off the database's clock an open's first
// check of a given deadline allows this process's to be: a deadline it
// finds past, or too far, by less is checked again at the room's insert,
// by the database's clock (one that is refused there rolls the open
// back).
const openClockLeeway = 5 * time.Minute

// checkInviteEmail is the one check of negotiation_open's invite_email:
// one address exactly as given (no display name, no spaces around it),
// at most 254 characters. It returns the address lowercased, as the
// invitation is sent to it.
func checkInviteEmail(s string) (string, error) {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 254 {
		return "", Errorf(ErrInvalid, "invite_email: not an email address")
	}
	return strings.ToLower(s), nil
}

// JoinInput is an agent's negotiation_join.
type JoinInput struct {
	InviteCode string // or the invite URL
	Schema     json.RawMessage
	Limits     json.RawMessage
}

// invitationGone places the protocol's reason an invitation can no longer
// be answered (Room.Joinable) at invite, negotiation_join's argument.
func invitationGone(err error) error {
	if e, ok := errors.AsType[*negotiation.Error](err); ok {
		words := e.Words
		words.At = "invite"
		return &Error{Code: ErrConflict, Message: "invite: " + e.Message, Words: words}
	}
	return err
}

// errOwnInvitation refuses a join by an agent of the opener's own human
// (the opener's agent included): a room's two sides answer to two humans.
var errOwnInvitation = Errorf(ErrConflict, "invite: this is an invitation to your own room; send invite_url to the other side (use negotiation_open to start your own)")

// JoinResult answers a join.
type JoinResult struct {
	RoomToken string
	View      *View
}

// Join seats the agent as the peer of the room its invitation opens. The
// same agent joining again is answered with its seat, not refused; an
// agent of the opener's human is refused (errOwnInvitation).
func (s *Rooms) Join(ctx context.Context, agent Agent, in JoinInput) (*JoinResult, error) {
	code := inviteCodeFrom(in.InviteCode)
	if code == "" {
		return nil, Errorf(ErrInvalid, "invite: required (the code or the invite URL)")
	}
	res := &JoinResult{}
	err := s.inTx(ctx, func(tx *roomTx) error {
		row, err := selectRoomToJoin(ctx, tx, secretHash(code), agent.AccountID, agent.OwnerUserID)
		if err != nil {
			return err
		}
		ld, err := s.restore(row)
		if err != nil {
			return err
		}
		roomID := row.ID
		if b := ld.row.Parties[1]; b != nil && b.AgentID != nil && *b.AgentID == agent.ID && *b.AccountID == agent.AccountID {
			// A retried join is answered with its seat; a join with another
			// schema or other limits is not the same move (limits are fixed
			// once declared).
			if err := ld.room.Rejoin(in.Schema, in.Limits); err != nil {
				return fromProtocol(err)
			}
			if res.RoomToken, err = s.keptSeatToken(ctx, tx, roomID, negotiation.SideB, b.TokenSalt); err != nil {
				return err
			}
			res.View, err = s.view(ctx, tx, ld, negotiation.SideB)
			return err
		}
		if a := ld.row.Parties[0]; a != nil && a.OwnerUserID != nil && *a.OwnerUserID == agent.OwnerUserID {
			// Both sides would answer to one human, who could then agree
			// with themselves; the invitation stays for the other side.
			return errOwnInvitation
		}
		now := s.clock(ld.row)
		if err := ld.room.Joinable(now); err != nil {
			// Taken by another, or no longer to be taken: refused with the
			// reason (seed 001), as the invitation's page says it to anyone
			// holding the code.
			return invitationGone(err)
		}
		next, ev, err := ld.room.Join(in.Schema, in.Limits, now)
		if err != nil {
			return fromProtocol(err)
		}
		if len(in.Schema) > 0 {
			if err := next.Party(negotiation.SideB).Schema.CheckDeceptiveFolded(norm.NFKC.String); err != nil {
				return fromProtocol(err)
			}
		}
		marks, err := s.withholdNoDeal(ctx, tx, roomID, row.AccountID, agent.AccountID, next, now)
		if err != nil {
			return err
		}
		b := next.Party(negotiation.SideB)
		p := &partyRow{Side: negotiation.SideB, AccountID: &agent.AccountID, AgentID: &agent.ID,
			OwnerUserID: &agent.OwnerUserID, TokenSalt: randomBytes(16),
			LimitsEnc: s.sealLimits(roomID, "b", b.Limits.Raw()), SchemaFP: string(b.Schema.Fingerprint())}
		res.RoomToken = s.roomToken(roomID, "b", p.TokenSalt)
		tokenHash := secretHash(res.RoomToken)
		seat := func(b *pgx.Batch) { queueParty(b, roomID, p, tokenHash, now) }
		ld.row.Parties[1] = p
		if err := s.commit(ctx, tx, ld, change{next: next, events: []negotiation.Event{ev}, queue: []func(*pgx.Batch){seat}, folded: marks}); err != nil {
			return err
		}
		res.View, err = s.view(ctx, tx, ld, negotiation.SideB)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
