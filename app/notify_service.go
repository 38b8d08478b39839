package app

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/taasky/taasky/jobs"
)

// Notifications is what humans choose about being told (preferences, push
// devices), what they were told (the delivery log), and what the
// notification workers read (jobs.Deliveries). The fan-out itself happens
// in Rooms.commit, in the move's transaction.
type Notifications struct {
	pool     *pgxpool.Pool
	river    *river.Client[pgx.Tx]
	rooms    *Rooms
	baseURL  string
	unsubKey []byte
	// unsubKeyPrev is SECRET_KEY_PREVIOUS's unsubscribe key during a
	// rotation: the links signed with it still work. nil: none.
	unsubKeyPrev []byte
	now          func() time.Time
	// simulated: a test's clock (NotificationsConfig.Now, or the rooms'
	// RoomsConfig.Now) stands for the database's too (dbMoment).
	simulated bool
	install   installation
}

// NotificationsConfig wires a Notifications.
type NotificationsConfig struct {
	Pool  *pgxpool.Pool
	River *river.Client[pgx.Tx]
	Rooms *Rooms // renders cards, issues one-tap tokens
	// UnsubscribeKey signs List-Unsubscribe links (config.Config.Key("unsubscribe")).
	UnsubscribeKey []byte
	// PreviousUnsubscribeKey is UnsubscribeKey under SECRET_KEY_PREVIOUS
	// during a rotation of SECRET_KEY (nil: none): links signed with it
	// still work; none is signed with it.
	PreviousUnsubscribeKey []byte
	BaseURL                string
	// Now is a test's clock that moves time, for the database's too, as
	// RoomsConfig.Now; nil: the rooms' clock (and the reminders' sweep
	// follows the database's clock unless the rooms' is simulated).
	Now func() time.Time
}

// NewNotifications builds the service.
func NewNotifications(c NotificationsConfig) (*Notifications, error) {
	if c.Rooms == nil || c.Pool == nil || c.River == nil {
		return nil, errors.New("notifications: pool, river and rooms are required")
	}
	if len(c.UnsubscribeKey) < 32 {
		return nil, errors.New("notifications: unsubscribe key: at least 32 bytes")
	}
	simulated := c.Now != nil || c.Rooms.simulated
	if c.Now == nil {
		c.Now = c.Rooms.now
	}
	return &Notifications{pool: c.Pool, river: c.River, rooms: c.Rooms, baseURL: c.BaseURL,
		unsubKey: c.UnsubscribeKey, unsubKeyPrev: c.PreviousUnsubscribeKey, now: c.Now, simulated: simulated}, nil
}

// dbMoment is Rooms.dbMoment for the notifications' clock (momentFor).
func (n *Notifications) dbMoment() *time.Time { return momentFor(n.simulated, n.now) }

var _ jobs.Deliveries = (*Notifications)(nil)
