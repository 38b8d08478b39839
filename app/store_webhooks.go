package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// The webhooks' SQL: webhook_endpoints, webhook_messages (one per event and
// endpoint: its webhook-id), webhook_attempts (the delivery log).

// hookTarget is an endpoint the fan-out may write a message for.
type hookTarget struct {
	accountID, endpointID int64
	events                []string
}

// moveCols are what a move may need besides its room to tell its parties,
// read with the locked room: their accounts' webhook endpoints and their
// humans' addresses (setMoveCols).
var moveCols = moveColsOf("pa", "pb")

// moveColsOf is moveCols of the parties joined as p1 and p2.
func moveColsOf(p1, p2 string) string {
	return hookTargetsCol(p1+`.account_id, `+p2+`.account_id`) + recipientsCol(p1+`.owner_user_id, `+p2+`.owner_user_id`)
}

// setMoveCols keeps moveCols' values; also are accounts whose endpoints
// the statement read besides the parties'.
func (r *roomRow) setMoveCols(hooks, recips []byte, also ...int64) error {
	if err := r.setHookTargets(hooks, also...); err != nil {
		return err
	}
	return r.setRecipients(recips)
}

// hookTargetsCol is selectHookTargets as a column of a room's statement
// (one JSON array of [account, endpoint, events]), for the accounts the
// SQL expression accounts lists: the endpoints a move may write messages
// for, read with its room instead of by a statement of their own.
func hookTargetsCol(accounts string) string {
	return `,
	coalesce((SELECT json_agg(json_build_array(w.account_id, w.id, w.events)) FROM webhook_endpoints w
		WHERE w.account_id IN (` + accounts + `) AND w.disabled_at IS NULL), '[]')`
}

// setHookTargets keeps hookTargetsCol's value: the endpoints of the
// room's parties' accounts, and of the accounts also, as the statement
// read them.
func (r *roomRow) setHookTargets(col []byte, also ...int64) error {
	var raw [][3]json.RawMessage
	if err := json.Unmarshal(col, &raw); err != nil {
		return fmt.Errorf("room %d webhook endpoints: %w", r.ID, err)
	}
	r.hooks, r.hooksOf = make([]hookTarget, len(raw)), []int64{}
	for i, x := range raw {
		t := &r.hooks[i]
		for j, dst := range []any{&t.accountID, &t.endpointID, &t.events} {
			if err := json.Unmarshal(x[j], dst); err != nil {
				return fmt.Errorf("room %d webhook endpoints: %w", r.ID, err)
			}
		}
	}
	for _, p := range r.Parties {
		if p != nil && p.AccountID != nil {
			r.hooksOf = append(r.hooksOf, *p.AccountID)
		}
	}
	r.hooksOf = append(r.hooksOf, also...)
	return nil
}

// selectHookTargets lists the enabled endpoints of the accounts, for a
// change whose room was not read with them (hookTargetsCol).
func selectHookTargets(ctx context.Context, q querier, accountIDs []int64) ([]hookTarget, error) {
	rows, err := q.Query(ctx, `SELECT account_id, id, events FROM webhook_endpoints
		WHERE account_id = ANY($1) AND disabled_at IS NULL`, accountIDs)
	if err != nil {
		return nil, fmt.Errorf("selectHookTargets: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (hookTarget, error) {
		var t hookTarget
		return t, r.Scan(&t.accountID, &t.endpointID, &t.events)
	})
	if err != nil {
		return nil, fmt.Errorf("selectHookTargets: %w", err)
	}
	return out, nil
}

// hookMessagesWrite is the messages' rows, folded into the room's UPDATE
// of a change (foldedWrite): a move reads no message. The endpoints were
// read with the room, at the start of its statement: one an owner deleted
// since (while the move waited for the room) gets no message, where its
// foreign key failed the whole move. Its endpoint's row locked FOR KEY
// SHARE, as the key's check would: a deletion under way is waited for,
// and a deleted endpoint's message is left out.
func hookMessagesWrite(ms []hookMessage) foldedWrite {
	n := len(ms)
	accts, ids, eps, evs, rooms, sides, seqs, ats := make([]int64, n), make([]string, n), make([]int64, n),
		make([]string, n), make([]int64, n), make([]string, n), make([]int32, n), make([]time.Time, n)
	for i, m := range ms {
		accts[i], ids[i], eps[i], evs[i], rooms[i], sides[i], seqs[i], ats[i] = m.accountID, m.id, m.endpointID,
			string(m.event), m.roomID, string(m.side), int32(m.seq), m.at
	}
	return foldedWrite{`INSERT INTO webhook_messages (account_id, id, endpoint_id, event, room_id, side, seq, occurred_at)
		SELECT m.* FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::int[], $8::timestamptz[])
			AS m (account_id, id, endpoint_id, event, room_id, side, seq, occurred_at)
		JOIN webhook_endpoints e ON e.account_id = m.account_id AND e.id = m.endpoint_id FOR KEY SHARE OF e`,
		[]any{accts, ids, eps, evs, rooms, sides, seqs, ats}}
}

// insertHookMessages writes the messages' rows by a statement of their
// own, for an event no move causes (mail.undelivered).
func insertHookMessages(ctx context.Context, q querier, ms []hookMessage) error {
	w := hookMessagesWrite(ms)
	if _, err := q.Exec(ctx, w.sql, w.args...); err != nil {
		return fmt.Errorf("insertHookMessages: %w", err)
	}
	return nil
}

// insertHookEndpoint stores a new endpoint.
func insertHookEndpoint(ctx context.Context, q querier, accountID, userID int64, url string, events []WebhookEvent, secrets []byte, at time.Time) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO webhook_endpoints (account_id, url, events, secrets, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, accountID, url, eventStrings(events), secrets, userID, at).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insertHookEndpoint: %w", err)
	}
	return id, nil
}

const hookEndpointCols = `id, url, events, secrets, created_at, rotated_at, failing_since, disabled_at, coalesce(disabled_why, '')`

func scanHookEndpoint(row pgx.Row) (WebhookEndpoint, []byte, error) {
	var e WebhookEndpoint
	var events []string
	var sealed []byte
	err := row.Scan(&e.ID, &e.URL, &events, &sealed, &e.CreatedAt, &e.RotatedAt, &e.FailingSince, &e.DisabledAt, &e.DisabledWhy)
	for _, ev := range events {
		e.Events = append(e.Events, WebhookEvent(ev))
	}
	return e, sealed, err
}

// selectHookEndpoints lists the account's endpoints, oldest first, with
// their sealed secrets.
func selectHookEndpoints(ctx context.Context, q querier, accountID int64) ([]WebhookEndpoint, [][]byte, error) {
	rows, err := q.Query(ctx, `SELECT `+hookEndpointCols+` FROM webhook_endpoints WHERE account_id = $1 ORDER BY id`, accountID)
	if err != nil {
		return nil, nil, fmt.Errorf("selectHookEndpoints: %w", err)
	}
	defer rows.Close()
	var es []WebhookEndpoint
	var sealed [][]byte
	for rows.Next() {
		e, s, err := scanHookEndpoint(rows)
		if err != nil {
			return nil, nil, fmt.Errorf("selectHookEndpoints: %w", err)
		}
		es, sealed = append(es, e), append(sealed, s)
	}
	return es, sealed, rows.Err()
}

// selectHookEndpoint reads one endpoint of the account (lock: FOR UPDATE).
func selectHookEndpoint(ctx context.Context, q querier, accountID, id int64, lock bool) (WebhookEndpoint, []byte, error) {
	sql := `SELECT ` + hookEndpointCols + ` FROM webhook_endpoints WHERE account_id = $1 AND id = $2`
	if lock {
		sql += ` FOR UPDATE`
	}
	e, sealed, err := scanHookEndpoint(q.QueryRow(ctx, sql, accountID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return e, nil, refuse(ErrNotFound, "error.no_endpoint", "endpoint: the account has no webhook endpoint %s", strconv.FormatInt(id, 10))
	}
	if err != nil {
		return e, nil, fmt.Errorf("selectHookEndpoint: %w", err)
	}
	return e, sealed, nil
}

// updateHookSecrets stores an endpoint's secrets after a rotation.
func updateHookSecrets(ctx context.Context, q querier, accountID, id int64, secrets []byte, at time.Time) error {
	_, err := q.Exec(ctx, `UPDATE webhook_endpoints SET secrets = $3, rotated_at = $4 WHERE account_id = $1 AND id = $2`,
		accountID, id, secrets, at)
	if err != nil {
		return fmt.Errorf("updateHookSecrets: %w", err)
	}
	return nil
}

// enableHookEndpoint turns a disabled endpoint back on, its run of failures
// forgotten.
func enableHookEndpoint(ctx context.Context, q querier, accountID, id int64) error {
	_, err := q.Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = NULL, disabled_why = NULL, failing_since = NULL
		WHERE account_id = $1 AND id = $2`, accountID, id)
	if err != nil {
		return fmt.Errorf("enableHookEndpoint: %w", err)
	}
	return nil
}

// deleteHookEndpoint deletes an endpoint, its messages and their log. The
// messages go first: an attempt being recorded locks its message, then
// the endpoint (insertHookAttempt), and a delete that locked the endpoint
// first would deadlock with it.
func deleteHookEndpoint(ctx context.Context, q querier, accountID, id int64) (string, error) {
	if _, err := q.Exec(ctx, `DELETE FROM webhook_messages WHERE account_id = $1 AND endpoint_id = $2`, accountID, id); err != nil {
		return "", fmt.Errorf("deleteHookEndpoint: %w", err)
	}
	var url string
	err := q.QueryRow(ctx, `DELETE FROM webhook_endpoints WHERE account_id = $1 AND id = $2 RETURNING url`, accountID, id).Scan(&url)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", refuse(ErrNotFound, "error.no_endpoint", "endpoint: the account has no webhook endpoint %s", strconv.FormatInt(id, 10))
	}
	if err != nil {
		return "", fmt.Errorf("deleteHookEndpoint: %w", err)
	}
	return url, nil
}

// hookSend is what a message's attempt reads: the message and its
// endpoint.
type hookSend struct {
	msg hookMessage
	// payload is the body as kept: sealed (payload_sealed), or in the
	// clear as a build before wrote it (payload), or neither yet.
	payload  []byte
	plain    bool
	url      string
	sealed   []byte
	disabled bool
}

func selectHookSend(ctx context.Context, q querier, accountID int64, messageID string) (*hookSend, error) {
	var s hookSend
	var side string
	var event string
	err := q.QueryRow(ctx, `SELECT m.id, m.endpoint_id, m.event, m.room_id, m.side, m.seq, m.occurred_at,
			coalesce(m.payload_sealed, m.payload), m.payload_sealed IS NULL AND m.payload IS NOT NULL, e.url, e.secrets, e.disabled_at IS NOT NULL
		FROM webhook_messages m JOIN webhook_endpoints e ON e.account_id = m.account_id AND e.id = m.endpoint_id
		WHERE m.account_id = $1 AND m.id = $2`, accountID, messageID).Scan(&s.msg.id, &s.msg.endpointID, &event,
		&s.msg.roomID, &side, &s.msg.seq, &s.msg.at, &s.payload, &s.plain, &s.url, &s.sealed, &s.disabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("selectHookSend: %w", err)
	}
	s.msg.accountID, s.msg.event, s.msg.side = accountID, WebhookEvent(event), negotiation.Side(side)
	return &s, nil
}

// fixHookPayload keeps the first sealed payload written for a message and
// returns the one kept: two attempts that race send the same bytes.
func fixHookPayload(ctx context.Context, q querier, accountID int64, messageID string, sealed []byte) ([]byte, error) {
	var kept []byte
	err := q.QueryRow(ctx, `UPDATE webhook_messages SET payload_sealed = coalesce(payload_sealed, $3)
		WHERE account_id = $1 AND id = $2 RETURNING payload_sealed`, accountID, messageID, sealed).Scan(&kept)
	if err != nil {
		return nil, fmt.Errorf("fixHookPayload: %w", err)
	}
	return kept, nil
}

// insertHookAttempt logs an attempt and sets the message's status, and
// keeps the endpoint's run of failures: a success ends it, a failure starts
// it (failing_since) if none was running. It returns the run's start (nil:
// none) and whether the endpoint is enabled.
func insertHookAttempt(ctx context.Context, q querier, a hookAttempt) (failingSince *time.Time, enabled bool, err error) {
	var code *int32
	if a.statusCode != 0 {
		c := int32(a.statusCode)
		code = &c
	}
	err = q.QueryRow(ctx, `WITH a AS (
			INSERT INTO webhook_attempts (account_id, message_id, job_id, attempt, at, duration_ms, status_code, error)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		), m AS (
			UPDATE webhook_messages SET status = $9, attempts = attempts + 1
			WHERE account_id = $1 AND id = $2 RETURNING endpoint_id
		)
		UPDATE webhook_endpoints e SET failing_since = CASE WHEN $9 = 'sent' THEN NULL ELSE coalesce(e.failing_since, $5) END
		FROM m WHERE e.account_id = $1 AND e.id = m.endpoint_id
		RETURNING e.failing_since, e.disabled_at IS NULL`,
		a.accountID, a.messageID, a.jobID, a.attempt, a.at, a.duration.Milliseconds(), code, a.err, a.status,
	).Scan(&failingSince, &enabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil // the endpoint was deleted meanwhile
	}
	if err != nil {
		return nil, false, fmt.Errorf("insertHookAttempt: %w", err)
	}
	return failingSince, enabled, nil
}

// skipHookMessage marks a message that will not be sent (its endpoint is
// off) unless it was sent already.
func skipHookMessage(ctx context.Context, q querier, accountID int64, messageID string) error {
	_, err := q.Exec(ctx, `UPDATE webhook_messages SET status = 'skipped' WHERE account_id = $1 AND id = $2 AND status <> 'sent'`,
		accountID, messageID)
	if err != nil {
		return fmt.Errorf("skipHookMessage: %w", err)
	}
	return nil
}

// selectHookSentBy reports whether an attempt of job delivered the message.
func selectHookSentBy(ctx context.Context, q querier, accountID int64, messageID string, jobID int64) (bool, error) {
	var sent bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_attempts WHERE account_id = $1 AND message_id = $2
		AND job_id = $3 AND status_code BETWEEN 200 AND 299)`, accountID, messageID, jobID).Scan(&sent)
	if err != nil {
		return false, fmt.Errorf("selectHookSentBy: %w", err)
	}
	return sent, nil
}

// disableHookEndpoint disables the message's endpoint, if still enabled,
// and returns its id and URL (0: it was not enabled).
func disableHookEndpoint(ctx context.Context, q querier, accountID int64, messageID, why string, at time.Time) (int64, string, error) {
	var id int64
	var url string
	err := q.QueryRow(ctx, `UPDATE webhook_endpoints e SET disabled_at = $3, disabled_why = $4
		FROM webhook_messages m WHERE m.account_id = $1 AND m.id = $2 AND e.account_id = m.account_id AND e.id = m.endpoint_id
			AND e.disabled_at IS NULL
		RETURNING e.id, e.url`, accountID, messageID, at, why).Scan(&id, &url)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("disableHookEndpoint: %w", err)
	}
	return id, url, nil
}

// selectOwners lists the account's owners' user ids.
func selectOwners(ctx context.Context, q querier, accountID int64) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner' ORDER BY user_id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("selectOwners: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("selectOwners: %w", err)
	}
	return ids, nil
}

// selectHookNotice is what the mail telling an owner of a disabled
// endpoint needs: the owner's email and language (while still an owner), the account's
// name, the endpoint's URL and its last failure; and the account's slug and
// whether the endpoint is still disabled. nil: the endpoint or the
// ownership is gone.
func selectHookNotice(ctx context.Context, q querier, accountID, endpointID, userID int64) (n *jobs.WebhookDisabled, slug string, disabled bool, err error) {
	n = &jobs.WebhookDisabled{}
	err = q.QueryRow(ctx, `SELECT u.email, coalesce(u.language, u.page_language, u.oidc_locale, ''), a.name, a.slug, e.url, coalesce(e.disabled_why, ''), e.disabled_at IS NOT NULL
		FROM webhook_endpoints e JOIN accounts a ON a.id = e.account_id
		JOIN memberships ms ON ms.account_id = e.account_id AND ms.user_id = $3 AND ms.role = 'owner'
		JOIN users u ON u.id = ms.user_id
		WHERE e.account_id = $1 AND e.id = $2`, accountID, endpointID, userID).Scan(&n.To, &n.Lang, &n.AccountName, &slug,
		&n.URL, &n.Why, &disabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, fmt.Errorf("selectHookNotice: %w", err)
	}
	return n, slug, disabled, nil
}

// selectHookLog reads an endpoint's latest messages, newest first, with
// every attempt of each.
func selectHookLog(ctx context.Context, q querier, accountID, endpointID int64, limit int) ([]WebhookMessage, error) {
	rows, err := q.Query(ctx, `SELECT m.id, m.event, m.room_id, m.occurred_at, m.status,
			coalesce(a.attempt, 0), a.at, coalesce(a.duration_ms, 0), coalesce(a.status_code, 0), coalesce(a.error, '')
		FROM (SELECT * FROM webhook_messages WHERE account_id = $1 AND endpoint_id = $2
			ORDER BY occurred_at DESC, id LIMIT $3) m
		LEFT JOIN webhook_attempts a ON a.account_id = m.account_id AND a.message_id = m.id
		ORDER BY m.occurred_at DESC, m.id, a.id`, accountID, endpointID, limit)
	if err != nil {
		return nil, fmt.Errorf("selectHookLog: %w", err)
	}
	defer rows.Close()
	var out []WebhookMessage
	for rows.Next() {
		var m WebhookMessage
		var a WebhookAttemptEntry
		var at *time.Time
		var ms int64
		var event string
		if err := rows.Scan(&m.ID, &event, &m.RoomID, &m.OccurredAt, &m.Status, &a.Attempt, &at, &ms, &a.StatusCode, &a.Error); err != nil {
			return nil, fmt.Errorf("selectHookLog: %w", err)
		}
		m.Event = WebhookEvent(event)
		if len(out) == 0 || out[len(out)-1].ID != m.ID {
			out = append(out, m)
		}
		if at != nil {
			a.At, a.Duration = *at, time.Duration(ms)*time.Millisecond
			last := &out[len(out)-1]
			last.Attempts = append(last.Attempts, a)
		}
	}
	return out, rows.Err()
}

// selectHookMessageEndpoint says which endpoint of the account a message
// belongs to (ErrNotFound: none of the account's).
func selectHookMessageEndpoint(ctx context.Context, q querier, accountID int64, messageID string) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT endpoint_id FROM webhook_messages WHERE account_id = $1 AND id = $2`, accountID, messageID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, refuse(ErrNotFound, "error.no_webhook_message", "message: the account sent no webhook %q", messageID)
	}
	if err != nil {
		return 0, fmt.Errorf("selectHookMessageEndpoint: %w", err)
	}
	return id, nil
}
