package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The statements of "Download my data" (my_data.go). A member's are scoped
// by the accounts they belong to (memberships first, then each account's
// parties through its index), so none reads a whole table.

// selectProfile is the person's user row as MyProfile holds it.
func selectProfile(ctx context.Context, q querier, userID int64) (MyProfile, error) {
	var p MyProfile
	var created time.Time
	err := q.QueryRow(ctx, `SELECT email, coalesce(display_name, ''), email_verified, coalesce(language, ''), coalesce(oidc_locale, ''),
		coalesce(page_language, ''), time_zone, created_at, coalesce(oidc_issuer, ''), coalesce(oidc_subject, '') FROM users WHERE id = $1`, userID).Scan(
		&p.Email, &p.Name, &p.EmailVerified, &p.Language, &p.ProviderLang, &p.PageLang, &p.TimeZone, &created, &p.SignInIssuer, &p.SignInSubject)
	if err != nil {
		return MyProfile{}, fmt.Errorf("selectProfile %d: %w", userID, err)
	}
	p.CreatedAt = rfc3339(created)
	return p, nil
}

// humanSeat is a seat a person answers for, and its account's slug.
type humanSeat struct {
	accountSeat
	account string
}

// selectHumanSeats lists the seats the person is the human of, in the
// accounts they belong to, oldest room first.
func selectHumanSeats(ctx context.Context, q querier, userID int64) ([]humanSeat, error) {
	rows, err := q.Query(ctx, `SELECT p.room_id, p.side, a.slug FROM memberships m
		JOIN accounts a ON a.id = m.account_id
		JOIN parties p ON p.account_id = m.account_id AND p.owner_user_id = m.user_id
		WHERE m.user_id = $1 ORDER BY p.room_id, p.side`, userID)
	if err != nil {
		return nil, fmt.Errorf("selectHumanSeats %d: %w", userID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (humanSeat, error) {
		var s humanSeat
		err := row.Scan(&s.roomID, &s.side, &s.account)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectHumanSeats %d: %w", userID, err)
	}
	return out, nil
}

const myConfirmationColumns = `c.room_id, c.side, c.id, c.verdict, coalesce(c.subject_hash, ''), c.status, coalesce(c.why, ''),
	c.requested_at, c.decided_at, coalesce(c.channel, ''), coalesce(c.decided_by = $1, false)`

func scanMyConfirmation(row pgx.CollectableRow) (MyConfirmation, error) {
	var c MyConfirmation
	var requested time.Time
	var decided *time.Time
	err := row.Scan(&c.RoomID, &c.Side, &c.ID, &c.Verdict, &c.SubjectHash, &c.Status, &c.Why, &requested, &decided, &c.Channel, &c.ByYou)
	c.RequestedAt, c.DecidedAt = rfc3339(requested), rfc3339p(decided)
	return c, err
}

// selectHumanConfirmations lists, in the rooms of the person's accounts,
// the confirmations their seats were asked for and those they decided for
// another seat, oldest first by room.
func selectHumanConfirmations(ctx context.Context, q querier, userID int64) ([]MyConfirmation, error) {
	rows, err := q.Query(ctx, `SELECT `+myConfirmationColumns+` FROM memberships m
		JOIN parties p ON p.account_id = m.account_id
		JOIN confirmations c ON c.room_id = p.room_id AND c.side = p.side
		WHERE m.user_id = $1 AND (p.owner_user_id = $1 OR c.decided_by = $1)
		ORDER BY c.room_id, c.requested_at, c.id`, userID)
	if err != nil {
		return nil, fmt.Errorf("selectHumanConfirmations %d: %w", userID, err)
	}
	out, err := pgx.CollectRows(rows, scanMyConfirmation)
	if err != nil {
		return nil, fmt.Errorf("selectHumanConfirmations %d: %w", userID, err)
	}
	return out, nil
}

// eachDelivery calls f with each entry of the person's whole delivery log
// (kept RETAIN_DELIVERY_LOG_DAYS), oldest first, as it reads them.
func eachDelivery(ctx context.Context, q querier, userID int64, f func(Delivery)) error {
	rows, err := q.Query(ctx, `SELECT `+deliveryColumns+`
		FROM notification_deliveries WHERE user_id = $1 ORDER BY created_at, job_id`, userID)
	if err != nil {
		return fmt.Errorf("eachDelivery %d: %w", userID, err)
	}
	defer rows.Close()
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return fmt.Errorf("eachDelivery %d: %w", userID, err)
		}
		f(d)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("eachDelivery %d: %w", userID, err)
	}
	return nil
}

// selectPersonDeliveryLog is the delivery log of a room's person, oldest
// first, without the address an invitation was mailed to (see
// PersonData.EmailIsInvitation).
func selectPersonDeliveryLog(ctx context.Context, q querier, roomID int64) ([]Delivery, error) {
	rows, err := q.Query(ctx, `SELECT d.job_id, d.channel, d.topic, d.room_id, '',
			CASE WHEN d.recipient = r.invite_email THEN '' ELSE d.recipient END, d.status, d.attempts, coalesce(d.error, ''),
			d.created_at, d.updated_at, '' FROM person_deliveries d JOIN rooms r ON r.id = d.room_id
		WHERE d.room_id = $1 ORDER BY d.created_at, d.job_id`, roomID)
	if err != nil {
		return nil, fmt.Errorf("selectPersonDeliveryLog %d: %w", roomID, err)
	}
	ds, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("selectPersonDeliveryLog %d: %w", roomID, err)
	}
	return ds, nil
}

// selectPersonFacts fills in what the room holds of its person: the
// address they gave (not the invitation's: see PersonData), their pages'
// language and zone, and the inviting account's name.
func selectPersonFacts(ctx context.Context, q querier, roomID int64, out *PersonData) error {
	err := q.QueryRow(ctx, `SELECT coalesce(p.person_email, ''), coalesce(p.person_email = r.invite_email, false),
			coalesce(s.lang, ''), coalesce(s.zone, ''), coalesce(a.name, '')
		FROM parties p JOIN rooms r ON r.id = p.room_id
		LEFT JOIN person_seats s ON s.room_id = p.room_id
		LEFT JOIN accounts a ON a.id = r.account_id
		WHERE p.room_id = $1 AND p.side = 'b'`, roomID).Scan(&out.Email, &out.EmailIsInvitation, &out.Language, &out.TimeZone, &out.Inviter)
	if err != nil {
		return fmt.Errorf("selectPersonFacts %d: %w", roomID, err)
	}
	if out.EmailIsInvitation {
		out.Email = ""
	}
	return nil
}

// selectMyOAuthClients lists the assistants the person connected with
// OAuth, in the accounts they belong to, with the scopes of their live
// tokens (never a token).
func selectMyOAuthClients(ctx context.Context, q querier, userID int64) ([]MyOAuthClient, error) {
	rows, err := q.Query(ctx, `SELECT c.id, c.kind, c.name, c.client_uri, a.slug, o.connected_at, o.last_used_at, o.disconnected_at,
			coalesce((SELECT array_agg(DISTINCT s ORDER BY s) FROM oauth_tokens t, jsonb_array_elements_text(t.request->'granted_scopes') s
				WHERE t.account_id = o.account_id AND t.agent_id = o.agent_id AND t.kind IN ('access', 'refresh') AND t.active), '{}')
		FROM memberships m
		JOIN accounts a ON a.id = m.account_id
		JOIN oauth_agents o ON o.account_id = m.account_id AND o.user_id = m.user_id
		JOIN oauth_clients c ON c.id = o.client_id
		WHERE m.user_id = $1 ORDER BY o.connected_at, o.agent_id`, userID)
	if err != nil {
		return nil, fmt.Errorf("selectMyOAuthClients %d: %w", userID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (MyOAuthClient, error) {
		var cl OAuthClient
		var m MyOAuthClient
		var connected time.Time
		var used, disconnected *time.Time
		err := row.Scan(&cl.ID, &cl.Kind, &m.Name, &cl.ClientURI, &m.Account, &connected, &used, &disconnected, &m.Scopes)
		m.Host, m.ConnectedAt, m.LastUsedAt, m.DisconnectedAt = cl.Host(), rfc3339(connected), rfc3339p(used), rfc3339p(disconnected)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectMyOAuthClients %d: %w", userID, err)
	}
	return out, nil
}
