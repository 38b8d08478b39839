package app

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// personSeat finds the room a person's token opens.
func personSeat(ctx context.Context, q querier, token string) (int64, error) {
	if !strings.HasPrefix(token, personTokenPrefix) {
		return 0, refuse(ErrNotFound, "error.link_not_valid", "this link is not valid")
	}
	roomID, err := selectPersonSeat(ctx, q, secretHash(token))
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, refuse(ErrNotFound, "error.link_not_valid", "this link is not valid")
	}
	return roomID, err
}

// loadPersonSeat restores the room a person's token opens (lock: its row
// locked for a change).
func (s *Rooms) loadPersonSeat(ctx context.Context, q querier, token string, lock bool) (*loaded, error) {
	roomID, err := personSeat(ctx, q, token)
	if err != nil {
		return nil, err
	}
	return s.load(ctx, q, roomID, lock)
}

// PersonRoom reads the room a person's token opens, as they see it (side b,
// the inviter's schema) in loc. It changes nothing.
func (s *Rooms) PersonRoom(ctx context.Context, token string, loc *time.Location) (*HumanRoom, error) {
	var h *HumanRoom
	err := pgx.BeginTxFunc(ctx, s.pool, readOnly, func(tx pgx.Tx) error {
		ld, err := s.loadPersonSeat(ctx, tx, token, false)
		if err != nil {
			return err
		}
		h, err = s.humanRoom(ctx, tx, ld, negotiation.SideB, 0, loc)
		if err != nil {
			return err
		}
		h.CanDecide = true // their tap is their confirmation
		h.invitersLabels()
		if h.Card != nil && !ld.room.AsksToConfirm(negotiation.SideB) {
			// The new-schema note is for terms they are asked to confirm:
			// not under their own proposal, nor once the room ended.
			h.Card.NewSchema = false
		}
		return nil
	})
	return h, err
}

// PersonAgreement is what a person's page offers of their agreed room:
// the signed receipt and what a calendar entry of it needs.
type PersonAgreement struct {
	RoomID int64
	// Receipt is the room's receipt (a JWS, as Receipt gives it); "" when
	// the service signs none (no receipt keys).
	Receipt string
	Title   string // the inviter's words, "" for none
	Them    string // the inviting account's name; "" when it was deleted
	// Card is the agreed terms as the person sees them (the inviter's
	// schema), in TimeZone.
	Card *negotiation.Card
	// TimeZone is the zone asked for; when none was (the person's browser
	// has not told theirs), the inviting human's, as their page guesses it,
	// and ZoneGuessed is set: its moments are to be written at its offset
	// with UTC beside (locale's ...WithUTC), as the page writes them.
	TimeZone    *time.Location
	ZoneGuessed bool
	AgreedAt    time.Time
	// RoomUID names the room in no other database (the calendar's UIDs,
	// the same as in the agreed mail's).
	RoomUID string
}

// PersonAgreement reads the agreed room a person's token opens, in loc
// (nil: UTC), with its receipt (issued on the first ask) when withReceipt
// (a calendar entry needs none). A room that is not agreed has none
// (ErrConflict).
func (s *Rooms) PersonAgreement(ctx context.Context, token string, loc *time.Location, withReceipt bool) (*PersonAgreement, error) {
	var a *PersonAgreement
	err := pgx.BeginTxFunc(ctx, s.pool, readOnly, func(tx pgx.Tx) error {
		ld, err := s.loadPersonSeat(ctx, tx, token, false)
		if err != nil {
			return err
		}
		roomID, r := ld.row.ID, ld.room
		if r.State != negotiation.StateAgreed {
			return refuse(ErrConflict, "error.no_receipt", "room %s is not agreed: it has no receipt", strconv.FormatInt(roomID, 10))
		}
		install, err := s.install.get(ctx, tx)
		if err != nil {
			return err
		}
		var guessFrom *int64 // the inviting human, whose zone guesses the person's
		if loc == nil {
			if p := ld.row.party(negotiation.SideA); p != nil {
				guessFrom = p.OwnerUserID
			}
		}
		name, zone, err := selectInviter(ctx, tx, ld.row.AccountID, guessFrom)
		if err != nil {
			return err
		}
		a = &PersonAgreement{RoomID: roomID, TimeZone: loc,
			RoomUID: roomUID(install, roomID, r.OpenedAt)}
		if loc == nil {
			a.TimeZone = s.zoneOf(zone)
			a.ZoneGuessed = a.TimeZone.String() != "UTC"
		}
		a.Card = r.Card(negotiation.SideB, true, a.TimeZone).InvitersLabels()
		if ld.row.Title != nil {
			a.Title = *ld.row.Title
		}
		events, err := ld.row.events()
		if err != nil {
			return err
		}
		if len(events) > 0 {
			a.AgreedAt = events[len(events)-1].At
		}
		if name != nil {
			a.Them = *name
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if withReceipt && s.receipts != nil {
		if a.Receipt, err = s.Receipt(ctx, a.RoomID); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// AnswerAsPerson applies a seated person's answer (see PersonAnswer). The
// answer that repeats their last move, with nothing after it
// (negotiation.Room.Repeats), changes nothing and is answered as the move
// was.
func (s *Rooms) AnswerAsPerson(ctx context.Context, token string, ans PersonAnswer) (*PersonResult, error) {
	res := &PersonResult{}
	err := s.inTx(ctx, func(tx *roomTx) error {
		ld, err := s.loadPersonSeat(ctx, tx, token, true)
		if err != nil {
			return err
		}
		roomID := ld.row.ID
		next, events, err := ld.room.Answer(negotiation.SideB, ans.protocol(), newConfirmationID(), s.clock(ld.row))
		if err != nil {
			// The same answer sent again (a double click, a POST the
			// browser sent again) is answered as the first was.
			if _, refused := err.(*negotiation.Error); refused {
				if log, lerr := ld.row.events(); lerr != nil {
					return lerr
				} else if ld.room.Repeats(log, negotiation.SideB, ans.protocol()) {
					res.RoomID, res.State = roomID, ld.room.State
					return nil
				}
			}
			return fromProtocol(err)
		}
		// Their mails speak as the page they last answered on.
		if err := updatePersonContext(ctx, tx, roomID, ans.Lang, s.personZone(ans.Zone)); err != nil {
			return err
		}
		if err := s.commit(ctx, tx, ld, change{next: next, events: events}); err != nil {
			return err
		}
		res.RoomID, res.State = roomID, next.State
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// PersonRoomID is the room a person's token opens (for live updates).
func (s *Rooms) PersonRoomID(ctx context.Context, token string) (int64, error) {
	return personSeat(ctx, s.pool, token)
}
