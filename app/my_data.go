package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// "Download my data" (GDPR Art. 15 and 20): what Taasky holds about one
// human, as a file they can read and take elsewhere. A member's is read
// from their settings page (MemberData), a person's from their seat's
// personal link (PersonData). Each holds what the pages already show that
// human, whole, and nothing the pages hide from them: never the other
// side's limits, never a secret (a token, a key or its hash, a push
// subscription's keys). docs/operations.md lists the fields.

// MyDataFormat names the file's shape; MyDataVersion is raised when a field
// changes meaning or goes away (a field added leaves it as it is).
const (
	MyDataFormat  = "taasky-my-data"
	MyDataVersion = 1
)

// MemberData is a signed-in human's data.
type MemberData struct {
	Format        string           `json:"format"`
	Version       int              `json:"format_version"`
	Kind          string           `json:"kind"` // "member"
	ExportedAt    string           `json:"exported_at"`
	Profile       MyProfile        `json:"profile"`
	Memberships   []MyMembership   `json:"memberships"`
	Notifications MyNotifyPrefs    `json:"notification_settings"`
	PushDevices   []MyPushDevice   `json:"push_devices"`
	Sessions      []MySession      `json:"sessions"`
	Deliveries    []MyDelivery     `json:"delivery_log"`
	Rooms         []MyRoom         `json:"rooms"`
	Decisions     []MyConfirmation `json:"other_decisions"`
	OAuthClients  []MyOAuthClient  `json:"oauth_clients"`
}

// MyProfile is the person as their user row holds them.
type MyProfile struct {
	Email         string `json:"email"`
	Name          string `json:"name,omitempty"` // the identity provider's, at the last sign-in
	EmailVerified bool   `json:"email_verified"`
	Language      string `json:"language,omitempty"`          // their choice
	ProviderLang  string `json:"provider_language,omitempty"` // the identity provider's locale
	PageLang      string `json:"page_language,omitempty"`     // the language their pages were last shown in, without a choice
	TimeZone      string `json:"time_zone"`
	CreatedAt     string `json:"created_at"`
	// SignInIssuer and SignInSubject are the identity provider's login
	// Taasky knows the person by (none for a person added by their
	// address who never signed in): who signs in as them.
	SignInIssuer  string `json:"sign_in_issuer,omitempty"`
	SignInSubject string `json:"sign_in_subject,omitempty"`
}

// MyMembership is an account the person belongs to, and their role.
type MyMembership struct {
	Account  string     `json:"account"`
	Name     string     `json:"name"`
	Role     MemberRole `json:"role"`
	Operator bool       `json:"operator,omitempty"`
}

// MyNotifyPrefs are the person's notification settings.
type MyNotifyPrefs struct {
	EmailRequests bool `json:"email_requests"`
	EmailNotices  bool `json:"email_notices"`
	PushRequests  bool `json:"push_requests"`
	PushNotices   bool `json:"push_notices"`
}

// MyPushDevice is a browser that receives their pushes: the push service's
// origin only, never the endpoint's path (a capability) or the keys.
type MyPushDevice struct {
	Device     string `json:"device,omitempty"`
	Service    string `json:"push_service"`
	CreatedAt  string `json:"created_at"`
	LastUsedAt string `json:"last_used_at,omitempty"`
}

// MySession is one of the person's live sessions (a browser they are
// signed in with): the browser and its system as its User-Agent named
// them, the sign-in, the last use (written at most every few minutes).
// Never its token or the token's hash.
type MySession struct {
	Browser    string `json:"browser,omitempty"`
	Platform   string `json:"platform,omitempty"`
	CreatedAt  string `json:"signed_in_at"`
	LastSeenAt string `json:"last_active_at"`
}

// MyDelivery is a line of a delivery log: what was sent, to where, when,
// and what became of it.
type MyDelivery struct {
	At             string       `json:"at"`
	Channel        jobs.Channel `json:"channel"`
	Topic          jobs.Topic   `json:"topic"`
	RoomID         int64        `json:"room_id,omitempty"`
	RoomTitle      string       `json:"room_title,omitempty"`
	ConfirmationID string       `json:"confirmation_id,omitempty"`
	Recipient      string       `json:"recipient"`
	Status         jobs.Status  `json:"status"`
	Attempts       int          `json:"attempts"`
	Error          string       `json:"error,omitempty"`
	UpdatedAt      string       `json:"updated_at"`
}

// MyRoom is a room the person answers for (their seat's human): the room
// as their side sees it (ExportRoom, as the account's export holds it) and
// every confirmation their side was asked for.
type MyRoom struct {
	Account       string           `json:"account"`
	Confirmations []MyConfirmation `json:"confirmations"`
	ExportRoom
}

// MyConfirmation is a confirmation a human was asked for, and their
// answer. ByYou: this person decided it (an owner may answer for a seat
// whose human left, and a seat's human may change).
type MyConfirmation struct {
	RoomID      int64                   `json:"room_id"`
	Side        negotiation.Side        `json:"side"`
	ID          string                  `json:"id"`
	Verdict     negotiation.Verdict     `json:"verdict"`
	SubjectHash negotiation.SubjectHash `json:"subject_hash,omitempty"`
	Status      string                  `json:"status"`
	Why         string                  `json:"why,omitempty"`
	RequestedAt string                  `json:"requested_at"`
	DecidedAt   string                  `json:"decided_at,omitempty"`
	Channel     string                  `json:"channel,omitempty"`
	ByYou       bool                    `json:"decided_by_you"`
}

// MyOAuthClient is an assistant the person connected to an account with
// OAuth: its name and host, when, and the scopes its live grant holds
// (none once disconnected). Never a token.
type MyOAuthClient struct {
	Name           string   `json:"name"`
	Host           string   `json:"host,omitempty"`
	Account        string   `json:"account"`
	ConnectedAt    string   `json:"connected_at"`
	LastUsedAt     string   `json:"last_used_at,omitempty"`
	DisconnectedAt string   `json:"disconnected_at,omitempty"`
	Scopes         []string `json:"scopes"`
}

// PersonData is the data of a person who answers a room from the browser,
// through their personal link: their seat, as the seat's page shows it.
type PersonData struct {
	Format     string `json:"format"`
	Version    int    `json:"format_version"`
	Kind       string `json:"kind"` // "person"
	ExportedAt string `json:"exported_at"`
	// Email is the address they gave for the room's news ("" for none).
	// When their news goes to the address the invitation was mailed to,
	// EmailIsInvitation says so and the address is left out, as the
	// invitation page leaves it out: whoever holds a forwarded link is not
	// told the invitee's address (nor by the delivery log's recipients).
	Email             string `json:"email,omitempty"`
	EmailIsInvitation bool   `json:"email_is_the_invitation_address,omitempty"`
	// Language and TimeZone are what their pages last told (their mails
	// speak so).
	Language   string       `json:"language,omitempty"`
	TimeZone   string       `json:"time_zone,omitempty"`
	Inviter    string       `json:"inviter"` // the inviting account's name; "" once deleted
	Deliveries []MyDelivery `json:"delivery_log"`
	// Room is the room as their side (b) sees it. Their answers, their
	// approvals among them, are its rounds by "you": a person's tap is
	// their confirmation, applied at once, so no confirmation waits for
	// them.
	Room ExportRoom `json:"room"`
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func rfc3339p(t *time.Time) string {
	if t == nil {
		return ""
	}
	return rfc3339(*t)
}

// WriteMemberData writes the signed-in person's data (a MemberData, as
// JSON) to w a room and a delivery at a time: however many rooms they
// answer for, only one is in memory. It changes nothing, except that an
// agreed room's receipt is signed if it never was (as its download
// would). Nothing is written when it is refused; on another error w holds
// a part: the caller drops it.
func (s *Rooms) WriteMemberData(ctx context.Context, userID int64, w io.Writer) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		p, err := selectProfile(ctx, tx, userID)
		if errors.Is(err, pgx.ErrNoRows) {
			return refuse(ErrNotFound, "error.profile_gone", "profile: there is no such person (deleted already?)")
		} else if err != nil {
			return err
		}
		out := newJSONOut(w)
		out.field("format", MyDataFormat)
		out.field("format_version", MyDataVersion)
		out.field("kind", "member")
		out.field("exported_at", rfc3339(s.now()))
		out.field("profile", p)
		ms, err := selectMemberships(ctx, tx, userID)
		if err != nil {
			return err
		}
		out.array("memberships")
		for _, m := range ms {
			out.item(MyMembership{Account: m.AccountSlug, Name: m.AccountName, Role: m.Role, Operator: m.Operator})
		}
		out.end()
		prefs, err := selectPrefs(ctx, tx, userID)
		if err != nil {
			return err
		}
		out.field("notification_settings", MyNotifyPrefs(prefs))
		subs, err := selectPushSubscriptions(ctx, tx, userID)
		if err != nil {
			return err
		}
		out.array("push_devices")
		for _, sub := range subs {
			out.item(MyPushDevice{Device: sub.Device, Service: origin(sub.Endpoint),
				CreatedAt: rfc3339(sub.CreatedAt), LastUsedAt: rfc3339p(sub.LastSentAt)})
		}
		out.end()
		sessions, err := selectMySessions(ctx, tx, userID, s.dbMoment())
		if err != nil {
			return err
		}
		out.array("sessions")
		for _, x := range sessions {
			out.item(x)
		}
		out.end()
		out.array("delivery_log")
		if err := eachDelivery(ctx, tx, userID, func(d Delivery) { out.item(myDelivery(d)) }); err != nil {
			return err
		}
		out.end()
		if err := s.memberRooms(ctx, tx, userID, out); err != nil {
			return err
		}
		cs, err := selectMyOAuthClients(ctx, tx, userID)
		if err != nil {
			return err
		}
		out.array("oauth_clients")
		for _, c := range cs {
			out.item(c)
		}
		out.end()
		return out.close()
	})
	if err != nil {
		return fmt.Errorf("my data: %w", err)
	}
	return nil
}

// memberRooms writes the rooms the person answers for, with their side's
// confirmations, and the decisions they took in other rooms (seats they
// no longer answer for: the decision only, not the room).
func (s *Rooms) memberRooms(ctx context.Context, tx pgx.Tx, userID int64, out *jsonOut) error {
	seats, err := selectHumanSeats(ctx, tx, userID)
	if err != nil {
		return err
	}
	cs, err := selectHumanConfirmations(ctx, tx, userID)
	if err != nil {
		return err
	}
	answers := map[accountSeat]bool{}
	for _, st := range seats {
		answers[st.accountSeat] = true
	}
	mine := map[accountSeat][]MyConfirmation{}
	others := []MyConfirmation{}
	for _, c := range cs {
		if st := (accountSeat{c.RoomID, c.Side}); answers[st] {
			mine[st] = append(mine[st], c)
		} else {
			others = append(others, c)
		}
	}
	out.array("rooms")
	for _, st := range seats {
		r, err := s.exportRoom(ctx, tx, st.accountSeat)
		if err != nil {
			return err
		}
		confirmations := mine[st.accountSeat]
		if confirmations == nil {
			confirmations = []MyConfirmation{}
		}
		out.item(MyRoom{Account: st.account, Confirmations: confirmations, ExportRoom: r})
	}
	out.end()
	out.array("other_decisions")
	for _, c := range others {
		out.item(c)
	}
	out.end()
	return nil
}

// PersonData returns the data of the person whose personal link token is.
// It changes nothing, except that an agreed room's receipt is signed if it
// never was (as its download would).
func (s *Rooms) PersonData(ctx context.Context, token string) (*PersonData, error) {
	out := &PersonData{Format: MyDataFormat, Version: MyDataVersion, Kind: "person", ExportedAt: rfc3339(s.now())}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		roomID, err := personSeat(ctx, tx, token)
		if err != nil {
			return err
		}
		if out.Room, err = s.exportRoom(ctx, tx, accountSeat{roomID, negotiation.SideB}); err != nil {
			return err
		}
		if err := selectPersonFacts(ctx, tx, roomID, out); err != nil {
			return err
		}
		ds, err := selectPersonDeliveryLog(ctx, tx, roomID)
		out.Deliveries = myDeliveries(ds)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("my data: %w", err)
	}
	return out, nil
}

func myDeliveries(ds []Delivery) []MyDelivery {
	out := make([]MyDelivery, len(ds))
	for i, d := range ds {
		out[i] = myDelivery(d)
	}
	return out
}

func myDelivery(d Delivery) MyDelivery {
	return MyDelivery{At: rfc3339(d.CreatedAt), Channel: d.Channel, Topic: d.Topic, RoomID: d.RoomID, RoomTitle: d.RoomTitle,
		ConfirmationID: d.ConfirmationID, Recipient: d.Recipient, Status: d.Status, Attempts: d.Attempts, Error: d.Error,
		UpdatedAt: rfc3339(d.UpdatedAt)}
}

// origin is a URL's scheme and host: a push endpoint's path is the
// subscription's capability, so it is never exported.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
