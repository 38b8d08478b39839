package notify

import (
	"net/url"
	"strings"
	"time"

	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

// Kind is what a message is about.
type Kind string

const (
	// KindRequest: an agent asks its human to confirm a move (approve,
	// reject, cancel, preapprove). Critical: never digested, never
	// unsubscribed away.
	KindRequest Kind = "request"
	// KindReminder: a request still waits and the room's deadline is near.
	KindReminder Kind = "reminder"
	// KindAgreed: both humans approved the same terms.
	KindAgreed Kind = "agreed"
	// KindClosed: the room closed (rejected, cancelled, withdrawn, expired,
	// lapsed).
	KindClosed Kind = "closed"
	// KindNoDeal: at the join, the two sides' limits cannot overlap on some
	// fields.
	KindNoDeal Kind = "no_deal"
	// KindTest: a push the human asked for from their settings.
	KindTest Kind = "test"
	// KindInvite: the invitation emailed at the open to the address the
	// inviter's agent gave; the recipient may have no account.
	KindInvite Kind = "invite"
	// KindMemberInvite: an invitation to join an account (its name in
	// Them, who invites in Agent, the role in Role, the link in InviteURL,
	// its expiry in ExpiresAt).
	KindMemberInvite Kind = "member_invite"
	// KindWebhookDisabled: Taasky disabled a webhook endpoint of an
	// account after days of failures (to its owners: the account's name in
	// Them, the endpoint in Endpoint, the last failure in Detail, its
	// settings page in SettingsURL).
	KindWebhookDisabled Kind = "webhook_disabled"
	// KindTurn: it is the turn of a person answering in the browser (no
	// account, no agent): the other side's move is in Verdict, their
	// terms in Card, their personal link in RoomURL.
	KindTurn Kind = "turn"
)

// Critical reports whether a message of this kind must reach its human
// whatever they unsubscribed from: only confirmation requests are.
func (k Kind) Critical() bool { return k == KindRequest }

// Message is one notification to one human, ready to render. Everything in
// it is the recipient's own view: a Card rendered through their schema and
// time zone; never the other side's limits, never a limit's value.
type Message struct {
	Kind Kind
	// ID is stable across retries of one delivery: the Message-ID's local
	// part, and the push tag.
	ID string
	// To is the recipient's email address (email only).
	To string
	// Push is the recipient's device (push only).
	Push     *PushTarget
	TimeZone *time.Location
	// ZoneGuessed: TimeZone is a guess at a reader whose own zone is not
	// known (a person's page before their browser told it: the inviting
	// human's zone), so moments are written at its offset with UTC beside,
	// as that page writes them (only the calendar entry reads it).
	ZoneGuessed bool
	// Lang is the recipient's language (a BCP 47 tag; "": English).
	Lang string
	Now  time.Time

	RoomID  int64
	RoomURL string
	Title   string // the room's title: the inviter's words, "" for none
	Agent   string // the recipient's agent, who asks
	Them    string // the other side, as the recipient knows them
	// ThemKey names the other side in the recipient's words when no
	// account's name is there to show (Them is ""): party.deleted_account,
	// party.to_invite, party.invited or party.inviter.
	ThemKey string
	// HandedOver: the request goes to an owner because the member who
	// answered for this side left the account (request).
	HandedOver bool
	// Person: the recipient answered the invitation in the browser and has
	// no account (turn, agreed, closed): RoomURL is their personal link,
	// and they have no settings.
	Person bool

	// Verdict is the move waiting for the recipient (request, reminder),
	// or the other side's move that made it the person's turn (turn).
	Verdict negotiation.Verdict
	// OneTapURL shows the card and answers it (request, reminder).
	OneTapURL string
	// InviteURL is the invitation's page (invite, member_invite).
	InviteURL string
	// Role is the role a member invitation offers (member_invite).
	Role string
	// Endpoint is a webhook endpoint's URL, Detail its last failure
	// (webhook_disabled).
	Endpoint, Detail string
	// Card is the recipient's card of the terms on the table (the agreed
	// terms once agreed); nil when nothing is on the table.
	Card     *negotiation.Card
	Deadline time.Time
	// ExpiresAt is when an invitation nobody answered expires (invite).
	ExpiresAt time.Time
	// ClosedReason says why the room closed (closed).
	ClosedReason negotiation.ClosedReason
	// NoDeal names, in the recipient's labels, the fields on which no deal
	// is possible (no_deal; also shown on requests).
	NoDeal []negotiation.CardNote
	// UnsubscribeURL stops non-critical mail (not on requests).
	UnsubscribeURL string
	SettingsURL    string
	// RoomUID names the room in no other database (calendar UIDs); ""
	// falls back to its id.
	RoomUID string
	// Organizer is who a calendar entry is from (its ORGANIZER, which a
	// published entry must have: RFC 5546 §3.2.1): an address, with or
	// without a name, as SMTP_FROM is; "" for Taasky at the service's host
	// (DefaultFrom). Email uses its own From.
	Organizer string
	// Receipt is the agreed room's signed receipt (a JWS), attached to the
	// agreed email as a .jws file; "" for none.
	Receipt string
}

// PushTarget is one browser's push subscription (PushSubscription.toJSON).
type PushTarget struct {
	Endpoint string
	P256dh   string
	Auth     string
}

// subjectOf is what the room is about, for subjects and push titles.
// them names the other side.
func (m *Message) them(w *locale.Printer) string {
	if m.ThemKey != "" {
		return w.T(locale.Key(m.ThemKey))
	}
	return m.Them
}

func (m *Message) subjectOf(w *locale.Printer) string {
	if m.Title != "" {
		return m.Title
	}
	if m.them(w) != "" {
		return w.T("mail.about_with", m.them(w))
	}
	return w.T("mail.about_yours")
}

// host is the service's host name, for Message-IDs and UIDs.
func (m *Message) host() string {
	for _, link := range []string{m.RoomURL, m.InviteURL, m.SettingsURL} {
		if u, err := url.Parse(link); err == nil && u.Hostname() != "" {
			return u.Hostname()
		}
	}
	return "taasky.invalid"
}

// verifyURL is the service's public page that checks receipts: beside
// the room's page ({BASE_URL}/rooms/{id}, or a person's {BASE_URL}/p/{token}),
// under BASE_URL's path if it has one.
func (m *Message) verifyURL() string {
	for _, page := range []string{"/rooms/", "/p/"} {
		if i := strings.LastIndex(m.RoomURL, page); i > 0 {
			return m.RoomURL[:i] + "/verify"
		}
	}
	return "/verify"
}

func (m *Message) loc() *time.Location {
	if m.TimeZone == nil {
		return time.UTC
	}
	return m.TimeZone
}
