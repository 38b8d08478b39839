package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/taasky/taasky/internal/netguard"
	"github.com/taasky/taasky/jobs"
)

// Webhooks are an account's endpoints for its own side of its rooms,
// signed as the Standard Webhooks specification says (docs/webhooks.md).
// Owners and admins manage them (ActManageWebhooks); the fan-out writes
// one message per event and endpoint in the move's transaction
// (Rooms.fanOutHooks); a River job per message sends it (jobs.WebhookWorker).
type Webhooks struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	rooms *Rooms // its key seals the secrets; its views are the payloads
	// checkHost refuses a host whose addresses are internal (netguard),
	// nil when loopback and private addresses are allowed (dev, tests).
	checkHost func(ctx context.Context, host string) error
	baseURL   string
	now       func() time.Time
}

// WebhooksConfig wires a Webhooks.
type WebhooksConfig struct {
	Pool  *pgxpool.Pool
	River *river.Client[pgx.Tx]
	Rooms *Rooms
	// CheckHost refuses a URL's host when it resolves to a loopback,
	// private or link-local address (netguard.CheckHost). nil (dev and
	// tests only): any host, and http to loopback.
	CheckHost func(ctx context.Context, host string) error
	BaseURL   string
}

// NewWebhooks builds the service.
func NewWebhooks(c WebhooksConfig) *Webhooks {
	return &Webhooks{pool: c.Pool, river: c.River, rooms: c.Rooms, checkHost: c.CheckHost,
		baseURL: c.BaseURL, now: c.Rooms.now}
}

// WebhookEvent is what a webhook tells of.
type WebhookEvent string

const (
	HookRoomOpened    WebhookEvent = "room.opened"            // your agent opened a room
	HookRoomJoined    WebhookEvent = "room.joined"            // the peer joined (both sides)
	HookRoomMoved     WebhookEvent = "room.moved"             // terms tabled, detail asked, an approval applied
	HookConfRequested WebhookEvent = "confirmation.requested" // your agent asks your human
	HookConfAnswered  WebhookEvent = "confirmation.answered"  // your human answered (or the answer came out void)
	HookRoomAgreed    WebhookEvent = "room.agreed"            // both humans approved the same terms
	HookRoomClosed    WebhookEvent = "room.closed"            // rejected, cancelled, withdrawn, expired, lapsed
	// HookMailUndelivered: the mail server refused for good the invitation
	// your agent had emailed, or the request to your human to confirm
	// (View.Undelivered).
	HookMailUndelivered WebhookEvent = "mail.undelivered"
)

const (
	webhookMaxEndpoints = 10
	// HookFailingFor is how long an endpoint may fail every attempt before
	// it is disabled and the account's owners are told.
	HookFailingFor = 72 * time.Hour
	// hookPreviousFor is how long a secret still signs after the rotation
	// that replaced it: each replaced secret for its own day, so that a
	// second rotation does not cut the first one's secret off.
	hookPreviousFor = 24 * time.Hour
	// hookPreviousMax bounds the replaced secrets that still sign (each
	// adds a signature to every message): a rotation beyond it, within a
	// day of ten others, retires the oldest early.
	hookPreviousMax = 10
	hookLogSize     = 50
)

// WebhookEvents is every event, in the order Settings lists them.
var WebhookEvents = []WebhookEvent{HookRoomOpened, HookRoomJoined, HookRoomMoved, HookConfRequested,
	HookConfAnswered, HookRoomAgreed, HookRoomClosed, HookMailUndelivered}

// WebhookEndpoint is an endpoint as Settings lists it: never its secret.
type WebhookEndpoint struct {
	ID           int64
	URL          string
	Events       []WebhookEvent
	CreatedAt    time.Time
	RotatedAt    *time.Time
	FailingSince *time.Time
	DisabledAt   *time.Time
	DisabledWhy  string
	// PreviousUntil: during a rotation, when the previous secret (the one
	// the last rotation replaced) stops signing.
	PreviousUntil *time.Time
	// OldestUntil: when secrets replaced by earlier rotations still sign
	// too (rotated again within the day), when the oldest of them stops.
	OldestUntil *time.Time
}

// WebhookMessage is one event sent (or to send) to an endpoint, with its
// attempts, for the delivery log.
type WebhookMessage struct {
	ID         string // webhook-id
	Event      WebhookEvent
	RoomID     int64
	OccurredAt time.Time
	Status     string // queued, sent, retrying, failed
	Attempts   []WebhookAttemptEntry
}

// WebhookAttemptEntry is one attempt in the delivery log.
type WebhookAttemptEntry struct {
	Attempt    int
	At         time.Time
	Duration   time.Duration
	StatusCode int // 0: no answer
	Error      string
}

// hookSecrets is what the sealed secrets hold: the current secret and
// the ones rotations replaced, each signing until its own moment.
type hookSecrets struct {
	Current string `json:"current"`
	// Earlier are the replaced secrets, oldest first, each until a day
	// after the rotation that replaced it.
	Earlier []hookEarlier `json:"earlier,omitempty"`
	// Previous and PreviousUntil are the one replaced secret as stored
	// before Earlier (read when Earlier is empty), and still written, the
	// newest of Earlier, for a binary of before Earlier during a deploy.
	Previous      string    `json:"previous,omitempty"`
	PreviousUntil time.Time `json:"previous_until,omitzero"`
}

// hookEarlier is a replaced secret and when it stops signing.
type hookEarlier struct {
	Secret string    `json:"secret"`
	Until  time.Time `json:"until"`
}

// earlier is the replaced secrets, oldest first, as stored now or before.
func (s hookSecrets) earlier() []hookEarlier {
	if len(s.Earlier) == 0 && s.Previous != "" {
		return []hookEarlier{{Secret: s.Previous, Until: s.PreviousUntil}}
	}
	return s.Earlier
}

// signing is the secrets that sign at now: the current one, then each
// replaced one whose day is not over, the latest replaced first.
func (s hookSecrets) signing(now time.Time) []string {
	out := []string{s.Current}
	for _, e := range slices.Backward(s.valid(now)) {
		out = append(out, e.Secret)
	}
	return out
}

// valid is the replaced secrets still signing at now, oldest first.
func (s hookSecrets) valid(now time.Time) []hookEarlier {
	var out []hookEarlier
	for _, e := range s.earlier() {
		if e.Secret != "" && now.Before(e.Until) {
			out = append(out, e)
		}
	}
	return out
}

// rotated is s after a rotation at now to secret: the current one joins
// the replaced ones for a day, those whose day is over are dropped, and at
// most hookPreviousMax are kept (the newest).
func (s hookSecrets) rotated(secret string, now time.Time) hookSecrets {
	earlier := append(s.valid(now), hookEarlier{Secret: s.Current, Until: now.Add(hookPreviousFor)})
	if len(earlier) > hookPreviousMax {
		earlier = earlier[len(earlier)-hookPreviousMax:]
	}
	last := earlier[len(earlier)-1]
	return hookSecrets{Current: secret, Earlier: earlier, Previous: last.Secret, PreviousUntil: last.Until}
}

func newHookSecret() string {
	return "whsec_" + base64.StdEncoding.EncodeToString(randomBytes(24))
}

func hookSecretsAD(accountID int64) []byte {
	return []byte("webhook-secrets\x00" + strconv.FormatInt(accountID, 10))
}

func (w *Webhooks) sealSecrets(accountID int64, s hookSecrets) []byte {
	plain, _ := json.Marshal(s) // strings and a time: cannot fail
	return seal(w.rooms.limitsKey, plain, hookSecretsAD(accountID))
}

func (w *Webhooks) openSecrets(accountID int64, sealed []byte) (hookSecrets, error) {
	var s hookSecrets
	plain, err := unseal(w.rooms.limitsKey, sealed, hookSecretsAD(accountID))
	if err != nil {
		return s, fmt.Errorf("webhook secrets of account %d: %w (was SECRET_KEY changed?)", accountID, err)
	}
	return s, json.Unmarshal(plain, &s)
}

// authorize is the actor's account when the policy lets them manage its
// webhooks.
func (w *Webhooks) authorize(ctx context.Context, q querier, actorID int64, slug string) (int64, error) {
	m, err := selectMembership(ctx, q, actorID, slug)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, refuse(ErrNotFound, "error.not_member", "account: you are not a member of %q", slug)
	}
	if err != nil {
		return 0, err
	}
	if !May(m.Role, ActManageWebhooks, Colleagues) {
		return 0, refuse(ErrUnauthorized, "error.webhooks_who", "webhooks: only the account's owners and admins manage them")
	}
	return m.AccountID, nil
}

// lockedAuthorize is authorize for a change, in its transaction: the
// account's members lock is taken (the deletion's and the team's), then
// who may is read again as it stands. A deletion that committed while
// this waited is refused (it disabled the account's endpoints: one turned
// on or added after it would be sent the rooms it closes), and so is a
// demotion or removal.
func (w *Webhooks) lockedAuthorize(ctx context.Context, tx pgx.Tx, actorID int64, slug string) (int64, error) {
	acct, err := w.authorize(ctx, tx, actorID, slug)
	if err != nil {
		return 0, err
	}
	if err := lockAccountMembers(ctx, tx, acct); err != nil {
		return 0, err
	}
	return w.authorize(ctx, tx, actorID, slug)
}

// checkHookURL is the one check of an endpoint's URL: absolute https (http
// only to loopback when private addresses are allowed), no user or
// fragment, a port (if any) from 1 to 65535, at most 2000 characters, and a host that does not resolve to
// an internal address. The error names the field and the rule.
func (w *Webhooks) checkHookURL(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "", refuse(ErrInvalid, "error.url_required", "url: is required")
	case len(raw) > 2000:
		return "", refuse(ErrInvalid, "error.url_long", "url: at most 2000 characters")
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return "", refuse(ErrInvalid, "error.url_absolute", "url: is not an absolute URL (https://host/path)")
	case u.User != nil:
		return "", refuse(ErrInvalid, "error.url_userinfo", "url: must not hold a user name or password")
	case u.Fragment != "":
		return "", refuse(ErrInvalid, "error.url_fragment", "url: must not have a #fragment")
	case !ValidPort(u.Port()):
		return "", refuse(ErrInvalid, "rc14_url_port", "url: the port must be a number from 1 to 65535 (got %s)", u.Port())
	case u.Scheme == "http" && w.checkHost == nil && netguard.IsLoopbackHost(u.Hostname()):
		return u.String(), nil
	case u.Scheme != "https":
		return "", refuse(ErrInvalid, "error.url_https", "url: must be https")
	}
	if w.checkHost != nil {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second) // a name that takes longer to resolve is refused
		defer cancel()
		if err := w.checkHost(ctx, u.Hostname()); err != nil {
			return "", refuse(ErrInvalid, "error.url_public", "url: %s: webhooks go only to public addresses", err)
		}
	}
	return u.String(), nil
}

// ValidPort says whether a URL's port is none or 1–65535: the rule of
// webhook URLs and OAuth redirect URIs.
func ValidPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// parseHookEvents reads the events an endpoint asks for: at least one,
// each known, each once.
func parseHookEvents(in []string) ([]WebhookEvent, error) {
	var out []WebhookEvent
	for _, e := range in {
		ev := WebhookEvent(strings.TrimSpace(e))
		if !slices.Contains(WebhookEvents, ev) {
			return nil, refuse(ErrInvalid, "error.event_unknown", "events: %q is not an event (one of %s)", e, joinEvents(WebhookEvents))
		}
		if !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	if len(out) == 0 {
		return nil, refuse(ErrInvalid, "error.events_none", "events: choose at least one")
	}
	return out, nil
}

func joinEvents(es []WebhookEvent) string { return strings.Join(eventStrings(es), ", ") }

func eventStrings(es []WebhookEvent) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e)
	}
	return out
}

// CreateWebhook adds an endpoint to the account and returns it with its
// secret, which is shown this once.
func (w *Webhooks) CreateWebhook(ctx context.Context, actorID int64, slug, rawURL string, events []string) (WebhookEndpoint, string, error) {
	fail := func(err error) (WebhookEndpoint, string, error) {
		return WebhookEndpoint{}, "", fmt.Errorf("create webhook: %w", err)
	}
	acct, err := w.authorize(ctx, w.pool, actorID, slug)
	if err != nil {
		return fail(err)
	}
	u, err := w.checkHookURL(ctx, strings.TrimSpace(rawURL))
	if err != nil {
		return fail(err)
	}
	evs, err := parseHookEvents(events)
	if err != nil {
		return fail(err)
	}
	secret := newHookSecret()
	var e WebhookEndpoint
	err = pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		// The account's lock holds additions at once to the cap.
		if acct, err = w.lockedAuthorize(ctx, tx, actorID, slug); err != nil {
			return err
		}
		have, _, err := selectHookEndpoints(ctx, tx, acct)
		if err != nil {
			return err
		}
		if len(have) >= webhookMaxEndpoints {
			return refuse(ErrConflict, "error.endpoints_cap", "url: an account has at most %d webhook endpoints", webhookMaxEndpoints)
		}
		now := w.now()
		id, err := insertHookEndpoint(ctx, tx, acct, actorID, u, evs, w.sealSecrets(acct, hookSecrets{Current: secret}), now)
		if err != nil {
			return err
		}
		e = WebhookEndpoint{ID: id, URL: u, Events: evs, CreatedAt: now}
		return insertAudit(ctx, tx, acct, actorID, AuditWebhookCreated, w.rooms.dbMoment(), map[string]string{"url": u, "events": joinEvents(evs)})
	})
	if err != nil {
		return fail(err)
	}
	return e, secret, nil
}

// ListWebhooks lists the account's endpoints (never their secrets).
func (w *Webhooks) ListWebhooks(ctx context.Context, actorID int64, slug string) ([]WebhookEndpoint, error) {
	acct, err := w.authorize(ctx, w.pool, actorID, slug)
	if err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	es, sealed, err := selectHookEndpoints(ctx, w.pool, acct)
	if err != nil {
		return nil, err
	}
	now := w.now()
	for i := range es {
		s, err := w.openSecrets(acct, sealed[i])
		if err != nil {
			return nil, err
		}
		if v := s.valid(now); len(v) > 0 {
			es[i].PreviousUntil = &v[len(v)-1].Until
			if len(v) > 1 {
				es[i].OldestUntil = &v[0].Until
			}
		}
	}
	return es, nil
}

// RotateWebhookSecret gives the endpoint a new secret, shown this once;
// the current one keeps signing beside it for a day (every message then
// carries a signature by each secret still signing), so that the receiver can switch without
// losing a message. A secret replaced by an earlier rotation keeps its own
// day: rotating twice in a day does not cut off the first secret.
func (w *Webhooks) RotateWebhookSecret(ctx context.Context, actorID int64, slug string, id int64) (string, error) {
	secret := newHookSecret()
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		acct, err := w.lockedAuthorize(ctx, tx, actorID, slug)
		if err != nil {
			return err
		}
		e, sealed, err := selectHookEndpoint(ctx, tx, acct, id, true)
		if err != nil {
			return err
		}
		old, err := w.openSecrets(acct, sealed)
		if err != nil {
			return err
		}
		now := w.now()
		next := old.rotated(secret, now)
		if err := updateHookSecrets(ctx, tx, acct, id, w.sealSecrets(acct, next), now); err != nil {
			return err
		}
		return insertAudit(ctx, tx, acct, actorID, AuditWebhookRotated, w.rooms.dbMoment(), map[string]string{"url": e.URL})
	})
	if err != nil {
		return "", fmt.Errorf("rotate webhook secret: %w", err)
	}
	return secret, nil
}

// EnableWebhook turns a disabled endpoint back on.
func (w *Webhooks) EnableWebhook(ctx context.Context, actorID int64, slug string, id int64) error {
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		acct, err := w.lockedAuthorize(ctx, tx, actorID, slug)
		if err != nil {
			return err
		}
		e, _, err := selectHookEndpoint(ctx, tx, acct, id, true)
		if err != nil || e.DisabledAt == nil {
			return err
		}
		if err := enableHookEndpoint(ctx, tx, acct, id); err != nil {
			return err
		}
		return insertAudit(ctx, tx, acct, actorID, AuditWebhookEnabled, w.rooms.dbMoment(), map[string]string{"url": e.URL})
	})
	if err != nil {
		return fmt.Errorf("enable webhook: %w", err)
	}
	return nil
}

// DeleteWebhook deletes an endpoint with its delivery log; its messages
// not yet sent are not sent.
func (w *Webhooks) DeleteWebhook(ctx context.Context, actorID int64, slug string, id int64) error {
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		acct, err := w.lockedAuthorize(ctx, tx, actorID, slug)
		if err != nil {
			return err
		}
		u, err := deleteHookEndpoint(ctx, tx, acct, id)
		if err != nil {
			return err
		}
		return insertAudit(ctx, tx, acct, actorID, AuditWebhookDeleted, w.rooms.dbMoment(), map[string]string{"url": u})
	})
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	return nil
}

// WebhookLog is an endpoint's latest messages, newest first, each with
// its attempts.
func (w *Webhooks) WebhookLog(ctx context.Context, actorID int64, slug string, id int64) (WebhookEndpoint, []WebhookMessage, error) {
	acct, err := w.authorize(ctx, w.pool, actorID, slug)
	if err != nil {
		return WebhookEndpoint{}, nil, fmt.Errorf("webhook log: %w", err)
	}
	e, _, err := selectHookEndpoint(ctx, w.pool, acct, id, false)
	if err != nil {
		return e, nil, fmt.Errorf("webhook log: %w", err)
	}
	ms, err := selectHookLog(ctx, w.pool, acct, id, hookLogSize)
	return e, ms, err
}

// SendWebhookAgain sends a message once more: a new job with the same
// webhook-id and the same payload, signed with the secrets valid now (a
// receiver that handled the message already recognises its id). It
// returns the message's endpoint.
func (w *Webhooks) SendWebhookAgain(ctx context.Context, actorID int64, slug, messageID string) (int64, error) {
	var endpoint int64
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		acct, err := w.lockedAuthorize(ctx, tx, actorID, slug)
		if err != nil {
			return err
		}
		if endpoint, err = selectHookMessageEndpoint(ctx, tx, acct, messageID); err != nil {
			return err
		}
		e, _, err := selectHookEndpoint(ctx, tx, acct, endpoint, false)
		if err != nil {
			return err
		}
		if e.DisabledAt != nil {
			return refuse(ErrConflict, "error.endpoint_disabled", "endpoint: %s is disabled; enable it first", e.URL)
		}
		now := w.now()
		if _, err = w.river.InsertTx(ctx, tx, jobs.WebhookArgs{AccountID: acct, MessageID: messageID, Again: now.UnixNano()}, nil); err != nil {
			return err
		}
		return insertAudit(ctx, tx, acct, actorID, AuditWebhookResent, w.rooms.dbMoment(), map[string]string{"url": e.URL, "message": messageID})
	})
	if err != nil {
		return 0, fmt.Errorf("send webhook again: %w", err)
	}
	return endpoint, nil
}
