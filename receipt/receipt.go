// Package receipt is an agreed room's receipt: the facts of the agreement
// (who, what, when, how each human confirmed, the log's head hash) in a
// JWS (RFC 7515, EdDSA over Ed25519) signed by keys derived from the
// server's secret, published as a JWK Set, and verified offline or at
// /verify. It signs and checks; it reads nothing from the database and
// decides nothing of the protocol (app gathers the facts).
//
// What a receipt must never hold: a limit, a token, or an email address.
package receipt

import (
	"encoding/json"
	"time"
)

// Type is the payload's "typ": the receipt's format and its version.
const Type = "taasky-receipt/1"

// HeaderType is the JWS protected header's "typ".
const HeaderType = "taasky-receipt+jws"

// Receipt is the signed payload.
type Receipt struct {
	Type     string    `json:"typ"`
	Issuer   string    `json:"iss"` // the issuing Taasky's BASE_URL
	KeyID    string    `json:"kid"` // the key that signed it, as in the header
	IssuedAt time.Time `json:"issued_at"`
	Room     Room      `json:"room"`
	Parties  Parties   `json:"parties"`
	// Terms are the agreed terms in their canonical form (RFC 8785), whose
	// SHA-256 is SubjectHash.
	Terms       json.RawMessage `json:"terms"`
	SubjectHash string          `json:"subject_hash"`
	Log         Log             `json:"log"`
}

// Room is the agreed room.
type Room struct {
	ID       int64     `json:"id"`
	Title    string    `json:"title,omitempty"` // the inviter's words
	AgreedAt time.Time `json:"agreed_at"`
}

// Parties are side a (who opened the room) and side b (who joined).
type Parties struct {
	A Party `json:"a"`
	B Party `json:"b"`
}

// Party is one side of the agreement.
type Party struct {
	// Account is the side's account's name; "" for a person who answered
	// the invitation in the browser without an account.
	Account string `json:"account,omitempty"`
	// Schema is the side's subject schema, canonical.
	Schema       json.RawMessage `json:"schema"`
	Confirmation Confirmation    `json:"confirmation"`
}

// Confirmation is a side's human approving the agreed terms.
type Confirmation struct {
	// By is the human's display name (from their sign-in); "" when Taasky
	// knows none. Never an email address.
	By      string    `json:"by,omitempty"`
	Channel Channel   `json:"channel"`
	Verdict string    `json:"verdict"` // approve, or preapprove (a's "any of these options")
	At      time.Time `json:"at"`
}

// Channel is the door a human's answer came through.
type Channel string

const (
	ChannelDashboard  Channel = "dashboard"  // the room's card, signed in
	ChannelEmail      Channel = "email"      // a one-tap link from an email
	ChannelPush       Channel = "push"       // a one-tap link from a push notification
	ChannelInvitation Channel = "invitation" // the invitation page, by a person without an agent
)

// Log is the room's hash-chained log at the agreement.
type Log struct {
	Head   string `json:"head"`   // negotiation.ChainLink of the last event
	Events int    `json:"events"` // how many events it chains
}
