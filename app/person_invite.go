package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/internal/tz"
	"github.com/taasky/taasky/negotiation"
)

// A person without an agent answers an invitation in the browser: they sit
// as side b with the inviter's schema and no account, agent or owner, and
// every tap of theirs is their human confirmation (the request and its
// answer in one change). Their seat opens with a personal token, kept
// hashed in parties.token_hash, that their link and their cookie carry.

const personTokenPrefix = "ps_"

// Invitation is what the invitation page shows before anyone joined.
type Invitation struct {
	RoomID      int64
	Title       string
	InviterName string
	// InviterDeleted: the inviter's account was deleted (InviterName is "").
	InviterDeleted bool
	// Open is true while the invitation can be answered; otherwise Refusal
	// says plainly why not (used, withdrawn, expired…).
	Open    bool
	Refusal string
	// RefusalWords is Refusal for the catalog (negotiation.Words).
	RefusalWords negotiation.Words
	// Deadline is when the invitation can be answered until: its end, 72
	// hours after the open, or the room's deadline if that comes first.
	Deadline time.Time
	// Schema is the inviter's: a person answers with it.
	Schema *negotiation.Schema
	// Card is the inviter's terms as the person would see them (nil if
	// none were tabled yet).
	Card *negotiation.Card
	// Preapproved: the inviter's human already confirmed any option, so a
	// pick agrees at once.
	Preapproved bool
	// TimeZone is the zone the card and the deadline are written in: the
	// person's, or, while their browser has not told it, the inviting
	// human's (UTC when they have none).
	TimeZone *time.Location
	// Emailed: the invitation was emailed (negotiation_open's
	// invite_email), so the person's news goes there unless they give
	// another address. The address itself is not shown.
	Emailed bool
	// human is the opening side's human (0: none): their own answer is
	// refused (ShownTo, errAnswerOwnInvitation).
	human int64
}

// errAnswerOwnInvitation refuses the answer of the opener's own human in
// the browser, signed in: a room's two sides answer to two humans, who
// could otherwise agree with themselves (errOwnInvitation, for agents).
var errAnswerOwnInvitation = refuse(ErrConflict, "web14_own_invitation",
	"this is your own invitation: you cannot answer it yourself; send its link to the person you invite")

// ShownTo makes the invitation as the signed-in person userID sees it (0:
// nobody signed in): to the opener's own human it cannot be answered, and
// says why (AnswerInvitation refuses their answer the same way).
func (inv *Invitation) ShownTo(userID int64) {
	if userID != 0 && userID == inv.human && inv.Open {
		inv.Open, inv.Refusal, inv.RefusalWords = false, errAnswerOwnInvitation.Message, errAnswerOwnInvitation.Words
	}
}

// PersonAnswer is a person's tap: approve (the hash they saw), reject,
// counter (terms in the inviter's schema), cancel, or join (take the seat
// and wait, when no terms are on the table yet). The protocol plays it as
// one operation (negotiation.Room.Answer, AnswerInvitation).
type PersonAnswer struct {
	Verdict negotiation.Verdict
	Hash    negotiation.SubjectHash
	Terms   json.RawMessage
	// Email is where the person's news goes (optional, at the join; else
	// the address the invitation was emailed to, if it was).
	Email string
	// Lang and Zone are the language the page was read in and the IANA
	// zone the person's browser told ("": not told), for their mails.
	Lang string
	Zone string
	// Nonce is the invitation page's (NewSeatNonce), sent with each of its
	// forms: the seat its answer takes opens with a token derived from it,
	// so that the same page's answer sent again (a double click, a POST the
	// browser retried after losing the first answer) is answered with that
	// seat, not refused as one more answer. "" (or not a nonce): a random
	// token.
	Nonce string
	// UserID is the signed-in person answering (0: nobody is signed in):
	// the opener's own human is refused (errAnswerOwnInvitation).
	UserID int64
}

// VerdictJoin is a person's join without a move.
const VerdictJoin = negotiation.VerdictJoin

// PersonResult is what a person's answer did.
type PersonResult struct {
	RoomID    int64
	SeatToken string // set when the answer took the seat (the personal link's token)
	State     negotiation.State
}

// InvitationByCode reads the invitation a code opens, as a person sees it
// in loc; loc nil (the person's browser has not told their zone) is the
// zone of the inviting side's human, a better guess than UTC for someone
// they invite. It changes nothing.
func (s *Rooms) InvitationByCode(ctx context.Context, code string, loc *time.Location) (*Invitation, error) {
	code = inviteCodeFrom(code)
	if code == "" {
		return nil, refuse(ErrNotFound, "error.invitation_link_not_valid", "this invitation link is not valid")
	}
	var inv *Invitation
	err := pgx.BeginTxFunc(ctx, s.pool, readOnly, func(tx pgx.Tx) error {
		roomID, _, err := roomByInvite(ctx, tx, secretHash(code))
		if errors.Is(err, errNoInvitation) {
			return refuse(ErrNotFound, "error.invitation_link_not_valid", "this invitation link is not valid")
		} else if err != nil {
			return err // the database's failure, not the link's: a 503 or a retry, and logged
		}
		ld, err := s.load(ctx, tx, roomID, false)
		if err != nil {
			return err
		}
		r := ld.room
		inv = &Invitation{RoomID: roomID, Deadline: r.InvitationEnd(), Schema: r.Party(negotiation.SideA).Schema,
			Preapproved: r.Preapproved, TimeZone: loc}
		if ld.row.Title != nil {
			inv.Title = *ld.row.Title
		}
		var human *int64
		if a := ld.row.party(negotiation.SideA); a != nil {
			human = a.OwnerUserID
		}
		if human != nil {
			inv.human = *human
		}
		name, zone, err := selectInviter(ctx, tx, ld.row.AccountID, human)
		if err != nil {
			return fmt.Errorf("inviter: %w", err)
		}
		if name != nil {
			inv.InviterName = *name
		} else {
			inv.InviterDeleted = true
		}
		if loc == nil {
			inv.TimeZone = s.zoneOf(zone)
		}
		if r.State == negotiation.StateDraft {
			invited, err := selectInviteEmail(ctx, tx, s.emailKey, roomID)
			if err != nil {
				return err
			}
			inv.Emailed = invited != ""
		}
		if _, _, err := r.AnswerInvitation(negotiation.Answer{Verdict: negotiation.VerdictJoin}, "", s.clock(ld.row)); err != nil {
			inv.Refusal = ErrorMessageOf(fromProtocol(err))
			if e, ok := err.(*negotiation.Error); ok {
				inv.RefusalWords = e.Words
			}
		} else {
			inv.Open = true
		}
		preview := *r
		preview.Parties[1] = negotiation.Party{Schema: inv.Schema}
		inv.Card = preview.Card(negotiation.SideB, true, inv.TimeZone).InvitersLabels() // a person answers with the inviter's schema
		return nil
	})
	return inv, err
}

// AnswerInvitation seats a person as side b of the room the code opens and
// applies their answer, all in one transaction. It returns their personal
// token: keep it in their cookie and give them their link.
func (s *Rooms) AnswerInvitation(ctx context.Context, code string, ans PersonAnswer) (*PersonResult, error) {
	code = inviteCodeFrom(code)
	var email *string
	if ans.Email != "" {
		e, err := normalizeEmail("email", ans.Email)
		if err != nil {
			return nil, err
		}
		email = &e
	}
	res := &PersonResult{}
	err := s.inTx(ctx, func(tx *roomTx) error {
		roomID, accountID, err := roomToAnswer(ctx, tx, secretHash(code), email)
		if errors.Is(err, errNoInvitation) {
			return refuse(ErrNotFound, "error.invitation_link_not_valid", "this invitation link is not valid")
		} else if err != nil {
			return err // the database's failure, not the link's: a 503 or a retry, and logged
		}
		if email != nil && s.inviteCap > 0 {
			// The address may count against the account's invitation cap
			// (countPersonEmail), which locks the account's row: locked
			// before the room's, as an open and a member's leaving (which
			// notes the rooms handed over) take them. The room first
			// deadlocked with a leaving.
			if err := lockAccountForInvites(ctx, tx, accountID); err != nil {
				return err
			}
		}
		ld, err := s.load(ctx, tx, roomID, true)
		if err != nil {
			return err
		}
		if a := ld.row.Parties[0]; ans.UserID != 0 && a != nil && a.OwnerUserID != nil && *a.OwnerUserID == ans.UserID {
			return errAnswerOwnInvitation
		}
		token := s.personSeatToken(roomID, ans.Nonce)
		if b := ld.row.Parties[1]; b != nil && b.AccountID == nil && token != "" {
			// Seated already: by this page's answer sent before, if the
			// token its nonce gives opens the seat (the room is locked, so
			// that answer committed); anyone else is refused below. During
			// a rotation of SECRET_KEY, that answer's token may be the
			// previous key's.
			tokens := []string{token}
			if s.tokenKeyPrev != nil {
				tokens = append(tokens, personSeatTokenUnder(s.tokenKeyPrev, roomID, ans.Nonce))
			}
			for _, t := range tokens {
				switch id, err := selectPersonSeat(ctx, tx, secretHash(t)); {
				case err == nil && id == roomID:
					res.RoomID, res.SeatToken, res.State = roomID, t, ld.room.State
					return nil
				case err != nil && !errors.Is(err, pgx.ErrNoRows):
					return err
				}
			}
		}
		now := s.clock(ld.row)
		next, events, err := ld.room.AnswerInvitation(ans.protocol(), newConfirmationID(), now)
		if err != nil {
			return fromProtocol(err)
		}
		res.SeatToken = token
		if token == "" {
			res.SeatToken = personTokenPrefix + base64.RawURLEncoding.EncodeToString(randomBytes(32))
		}
		b := next.Party(negotiation.SideB)
		if email != nil {
			if err := s.countPersonEmail(ctx, tx, roomID, ld.row.Parties[0], *email, now); err != nil {
				return err
			}
		} else {
			// They received the invitation there: their news goes there too.
			if invited, err := selectInviteEmail(ctx, tx, s.emailKey, roomID); err != nil {
				return err
			} else if invited != "" {
				email = &invited
			}
		}
		p := &partyRow{Side: negotiation.SideB, TokenSalt: randomBytes(16),
			LimitsEnc: s.sealLimits(roomID, "b", b.Limits.Raw()), SchemaFP: string(b.Schema.Fingerprint()),
			PersonEmail: email, person: &personSeatRow{lang: ans.Lang, zone: s.personZone(ans.Zone), link: s.sealPersonLink(roomID, res.SeatToken)}}
		if err := insertParty(ctx, tx, roomID, p, secretHash(res.SeatToken), now); err != nil {
			return err
		}
		ld.row.Parties[1] = p
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

// NewSeatNonce is a fresh nonce for the forms of one invitation page
// (PersonAnswer.Nonce): 256 random bits, base64url.
func NewSeatNonce() string { return base64.RawURLEncoding.EncodeToString(randomBytes(32)) }

// personSeatToken is the personal token of the seat an invitation page's
// answer takes, derived from the page's nonce with the token key and bound
// to the room: the same page's answer gets the same token, and nobody
// without that page's nonce (someone else holding the invitation link:
// each page view has its own) can derive it, nor can the database alone.
// "" when nonce is not one of NewSeatNonce's.
func (s *Rooms) personSeatToken(roomID int64, nonce string) string {
	return personSeatTokenUnder(s.tokenKey, roomID, nonce)
}

func personSeatTokenUnder(key []byte, roomID int64, nonce string) string {
	raw, err := base64.RawURLEncoding.DecodeString(nonce)
	if err != nil || len(raw) != 32 {
		return ""
	}
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "person-seat\x00%d\x00", roomID)
	m.Write(raw)
	return personTokenPrefix + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// personZone is the zone a person's answer told, if it is one: nil for
// none (their mails then write UTC).
func (s *Rooms) personZone(name string) *string {
	if len(name) > 64 {
		return nil
	}
	if _, err := tz.Load(name); err != nil {
		return nil
	}
	return &name
}

// A person's mails carry their personal link (/p/{token}), which works in
// any browser: the token is stored hashed to find the seat, and sealed with
// the limits' key, bound to the room, so that a mail written later can
// carry it. A forwarded mail then gives what the personal link gives, and
// nothing more; River's tables never hold it (the worker unseals it when
// it writes the mail).

func personLinkAD(roomID int64) []byte {
	return []byte("person-link\x00" + strconv.FormatInt(roomID, 10))
}

func (s *Rooms) sealPersonLink(roomID int64, token string) []byte {
	return seal(s.limitsKey, []byte(token), personLinkAD(roomID))
}

func (s *Rooms) openPersonLink(roomID int64, sealed []byte) (string, error) {
	token, err := unseal(s.limitsKey, sealed, personLinkAD(roomID))
	if err != nil {
		return "", fmt.Errorf("personal link of room %d: %w", roomID, err)
	}
	return string(token), nil
}

// protocol is the answer as the protocol takes it (the email is the
// service's).
func (a PersonAnswer) protocol() negotiation.Answer {
	return negotiation.Answer{Verdict: a.Verdict, Hash: a.Hash, Terms: a.Terms}
}
