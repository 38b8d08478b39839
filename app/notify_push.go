package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/taasky/taasky/internal/netguard"
	"github.com/taasky/taasky/jobs"
)

// PushSubscription is one browser a user gets pushes on.
type PushSubscription struct {
	ID         int64
	Endpoint   string
	Device     string // what the user or the browser called it, e.g. "Firefox on Linux"
	CreatedAt  time.Time
	LastSentAt *time.Time
}

// PushSubscriptionInput is a browser's PushSubscription.toJSON(): endpoint
// and keys (base64url), plus a name for it.
type PushSubscriptionInput struct {
	Endpoint string
	P256dh   string
	Auth     string
	Device   string
}

func (in *PushSubscriptionInput) validate() error {
	u, err := url.Parse(in.Endpoint)
	// Browsers' push services are https; http only on this machine (the
	// tests' endpoints, taasky dev), where the pusher alone may reach it.
	plainLocal := u != nil && u.Scheme == "http" && netguard.IsLoopbackHost(u.Hostname())
	if err != nil || u.Host == "" || (u.Scheme != "https" && !plainLocal) || len(in.Endpoint) > 2048 {
		return refuse(ErrInvalid, "error.push_endpoint", "endpoint: an https URL from the browser's push subscription")
	}
	if b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(in.P256dh, "=")); err != nil || len(b) != 65 || b[0] != 4 {
		return refuse(ErrInvalid, "error.push_p256dh", "keys.p256dh: a P-256 public key, base64url (65 bytes)")
	}
	if b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(in.Auth, "=")); err != nil || len(b) != 16 {
		return refuse(ErrInvalid, "error.push_auth", "keys.auth: 16 bytes, base64url")
	}
	in.Device = strings.TrimSpace(in.Device)
	if !utf8.ValidString(in.Device) {
		in.Device = ""
	}
	in.Device = clipRunes(in.Device, 120)
	return nil
}

// MaxPushDevices is how many browsers a user gets pushes on: each
// notification is a push job per device, in the queue every tenant's
// notifications share.
const MaxPushDevices = 20

// Subscribe stores a browser's push subscription for the user. The same
// browser subscribing again (same endpoint) replaces its keys, and moves to
// this user if another had it. A new one past MaxPushDevices is refused
// (the user's row is locked for the count: two browsers at once cannot
// both take the last place).
func (n *Notifications) Subscribe(ctx context.Context, userID int64, in PushSubscriptionInput) (PushSubscription, error) {
	if err := in.validate(); err != nil {
		return PushSubscription{}, err
	}
	var s PushSubscription
	err := pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) error {
		others, err := lockCountOtherPushSubscriptions(ctx, tx, userID, in.Endpoint)
		if errors.Is(err, pgx.ErrNoRows) {
			return Errorf(ErrNotFound, "no user %d", userID)
		} else if err != nil {
			return err
		}
		if others >= MaxPushDevices {
			return refuse(ErrConflict, "abuse7_push_devices_cap", "device: at most %d devices get your notifications; remove one under Web Push first", MaxPushDevices)
		}
		s, err = upsertPushSubscription(ctx, tx, userID, in, n.now())
		return err
	})
	if isForeignKeyViolation(err) {
		return s, Errorf(ErrNotFound, "no user %d", userID)
	}
	if err != nil {
		return s, fmt.Errorf("push subscribe: %w", err)
	}
	return s, nil
}

// Unsubscribe forgets one of the user's push subscriptions (by id, or by
// endpoint when id is 0: what the browser knows). Forgetting one that is
// not there is not an error.
func (n *Notifications) Unsubscribe(ctx context.Context, userID, id int64, endpoint string) error {
	if err := deleteUserPushSubscription(ctx, n.pool, userID, id, endpoint); err != nil {
		return fmt.Errorf("push unsubscribe: %w", err)
	}
	return nil
}

// PushSubscriptions lists the user's devices, newest first.
func (n *Notifications) PushSubscriptions(ctx context.Context, userID int64) ([]PushSubscription, error) {
	subs, err := selectPushSubscriptions(ctx, n.pool, userID)
	if err != nil {
		return nil, fmt.Errorf("push subscriptions: %w", err)
	}
	return subs, nil
}

// TestPushEvery is how often a person may send a test push: each is a
// push to every device they added, each device an address they chose, in
// the queue every tenant's pushes and webhooks share (jobs.QueueOutbound).
// Without it one person pressing "Send a test" again and again queued
// hundreds of pushes a second.
const TestPushEvery = time.Minute

// SendTestPush queues a test push to each of the user's devices (or to one,
// when id is not 0) and returns how many. The delivery log shows how each
// went. A test within TestPushEvery of the user's last is refused.
func (n *Notifications) SendTestPush(ctx context.Context, userID, id int64) (int, error) {
	subs, err := n.PushSubscriptions(ctx, userID)
	if err != nil {
		return 0, err
	}
	nonce := make([]byte, 9)
	_, _ = rand.Read(nonce)
	var params []river.InsertManyParams
	var logged []delivery
	for _, s := range subs {
		if id != 0 && s.ID != id {
			continue
		}
		notice := jobs.Notice{Topic: jobs.TopicTest, UserID: userID}
		params = append(params, river.InsertManyParams{Args: jobs.PushArgs{Notice: notice, SubscriptionID: s.ID,
			Nonce: base64.RawURLEncoding.EncodeToString(nonce)}})
		logged = append(logged, delivery{Notice: notice, Channel: jobs.ChannelPush, SubscriptionID: s.ID, Recipient: endpointHost(s.Endpoint)})
	}
	if len(params) == 0 {
		return 0, refuse(ErrNotFound, "error.push_no_device", "no device to push to: subscribe this browser first")
	}
	var wait *Error
	err = pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) error {
		last, err := lastTestPush(ctx, tx, userID, n.dbMoment(), TestPushEvery)
		if err != nil {
			return err
		}
		if !last.IsZero() {
			// From the next whole minute: the dashboard writes moments to
			// the minute, and one cut to it would name a moment still refused.
			from := last.Add(TestPushEvery)
			if m := from.Truncate(time.Minute); m.Before(from) {
				from = m.Add(time.Minute)
			}
			wait = refuse(ErrConflict, "atk15_push_test_wait", "a test push was sent at %s; see how it went in the delivery log, or send another from %s",
				Moment(last), Moment(from))
			return wait
		}
		res, err := n.river.InsertManyTx(ctx, tx, params)
		if err != nil {
			return err
		}
		if err := matchJobIDs(logged, res); err != nil {
			return err
		}
		return insertQueued(ctx, tx, logged, n.dbMoment()) // the moment the next test's check counts from
	})
	if wait != nil {
		return 0, wait
	}
	if err != nil {
		return 0, fmt.Errorf("test push: %w", err)
	}
	return len(params), nil
}
