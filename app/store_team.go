package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The SQL of teams: memberships by account, invitations to join
// (account_invitations), their mails for the daily cap
// (member_invite_emails), a removed member's seats and sessions, and the
// notes a room's timeline shows (room_notes).

// selectMembership is userID's membership in the account with slug.
func selectMembership(ctx context.Context, q querier, userID int64, slug string) (Membership, error) {
	m, err := scanMembership(q.QueryRow(ctx, membershipSQL+` WHERE a.slug = $1 AND m.user_id = $2`, slug, userID))
	if err != nil {
		return Membership{}, fmt.Errorf("selectMembership %s %d: %w", slug, userID, err)
	}
	return m, nil
}

// selectMembershipByID is userID's membership in the account with id.
func selectMembershipByID(ctx context.Context, q querier, userID, accountID int64) (Membership, error) {
	m, err := scanMembership(q.QueryRow(ctx, membershipSQL+` WHERE m.account_id = $1 AND m.user_id = $2`, accountID, userID))
	if err != nil {
		return Membership{}, fmt.Errorf("selectMembershipByID %d %d: %w", accountID, userID, err)
	}
	return m, nil
}

// selectMembers lists the account's members, owners first, then by email.
// memberRank orders the members: owners, admins, members.
const memberRank = `CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END`

// selectMembers reads at most limit of the account's members after the
// one of rank and email (owners first, then admins, then members, each by
// email).
func selectMembers(ctx context.Context, q querier, accountID int64, rank int, email string, limit int) ([]Member, error) {
	rows, err := q.Query(ctx, `SELECT u.id, u.email, m.role, m.created_at FROM memberships m
		JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 AND (`+memberRank+`, u.email) > ($2, $3)
		ORDER BY `+memberRank+`, u.email LIMIT $4`, accountID, rank, email, limit)
	if err != nil {
		return nil, fmt.Errorf("selectMembers %d: %w", accountID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Member, error) {
		var m Member
		err := row.Scan(&m.UserID, &m.Email, &m.Role, &m.Since)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectMembers %d: %w", accountID, err)
	}
	return out, nil
}

// lockAccountMembers takes the account's row lock, until the transaction
// ends, that serializes its role changes and removals (so two cannot
// leave it without an owner), the count of its invitation mails, and its
// agents and keys made (checkAgentCap, checkKeyCap) with who may make
// them read under it (CreateAgent, IssueAgentKey, OAuth.Connect). FOR NO
// KEY UPDATE: the foreign keys of rooms and agents inserted meanwhile do
// not wait for it. An account whose deletion committed while this waited
// is refused (its deletion takes the same lock): nothing more is done in it.
func lockAccountMembers(ctx context.Context, q querier, accountID int64) error {
	var name string
	var deleting bool
	err := q.QueryRow(ctx, `SELECT name, deleting_at IS NOT NULL FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, accountID).Scan(&name, &deleting)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("lockAccountMembers %d: %w", accountID, err)
	}
	if deleting {
		return refuse(ErrNotFound, "lv17_error.account_deleting",
			"account: %s is being deleted; its open rooms are being closed, and nothing more can be done in it", name)
	}
	return nil
}

func countOwners(ctx context.Context, q querier, accountID int64) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM memberships WHERE account_id = $1 AND role = 'owner'`, accountID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("countOwners %d: %w", accountID, err)
	}
	return n, nil
}

func updateRole(ctx context.Context, q querier, accountID, userID int64, role MemberRole) error {
	tag, err := q.Exec(ctx, `UPDATE memberships SET role = $3 WHERE account_id = $1 AND user_id = $2`, accountID, userID, role)
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	if err != nil {
		return fmt.Errorf("updateRole %d %d: %w", accountID, userID, err)
	}
	return nil
}

// revokeMemberKeys revokes the keys userID was shown for colleagues'
// agents in the account (issued by them) and, with theirOwn, the keys of
// userID's own agents; it returns their hashes (to forget them at once).
func revokeMemberKeys(ctx context.Context, q querier, accountID, userID int64, at time.Time, theirOwn bool) ([][]byte, error) {
	rows, err := q.Query(ctx, `UPDATE agent_keys k SET revoked_at = coalesce(k.revoked_at, $3)
		FROM agents g WHERE k.account_id = $1 AND g.account_id = k.account_id AND g.id = k.agent_id
		AND (g.owner_user_id = $2 AND $4 OR k.issued_by = $2 AND g.owner_user_id IS DISTINCT FROM $2)
		RETURNING k.key_hash`, accountID, userID, at, theirOwn)
	if err != nil {
		return nil, fmt.Errorf("revokeMemberKeys %d %d: %w", accountID, userID, err)
	}
	hashes, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, fmt.Errorf("revokeMemberKeys %d %d: %w", accountID, userID, err)
	}
	return hashes, nil
}

// seatRef is one side of one room.
type seatRef struct {
	RoomID int64
	Side   string
}

// orphanSeats hands the open seats userID answers for in the account to
// nobody (the owners answer them: access.go), and voids the one-tap links
// of their pending confirmations, which went to userID. It returns the
// seats.
func orphanSeats(ctx context.Context, q querier, accountID, userID int64, at time.Time) ([]seatRef, error) {
	rows, err := q.Query(ctx, `UPDATE parties p SET owner_user_id = NULL FROM rooms r
		WHERE p.account_id = $1 AND p.owner_user_id = $2 AND r.id = p.room_id AND r.state IN ('draft', 'awaiting')
		RETURNING p.room_id, p.side`, accountID, userID)
	if err != nil {
		return nil, fmt.Errorf("orphanSeats %d %d: %w", accountID, userID, err)
	}
	seats, err := pgx.CollectRows(rows, pgx.RowToStructByPos[seatRef])
	if err != nil {
		return nil, fmt.Errorf("orphanSeats %d %d: %w", accountID, userID, err)
	}
	if len(seats) == 0 {
		return nil, nil
	}
	ids, sides := make([]int64, len(seats)), make([]string, len(seats))
	for i, s := range seats {
		ids[i], sides[i] = s.RoomID, s.Side
	}
	_, err = q.Exec(ctx, `UPDATE onetap_tokens t SET used_at = $3, stopped = $4
		FROM confirmations c, unnest($1::bigint[], $2::text[]) AS s(room_id, side)
		WHERE c.room_id = s.room_id AND c.side = s.side AND c.status = 'pending'
		  AND t.room_id = c.room_id AND t.confirmation_id = c.id AND t.used_at IS NULL`, ids, sides, at, LinkStoppedLeft)
	if err != nil {
		return nil, fmt.Errorf("orphanSeats %d %d: one-tap links: %w", accountID, userID, err)
	}
	_, err = q.Exec(ctx, `INSERT INTO room_notes (room_id, side, at, kind, email)
		SELECT s.room_id, s.side, $3, 'member_left', u.email FROM unnest($1::bigint[], $2::text[]) AS s(room_id, side)
		JOIN users u ON u.id = $4`, ids, sides, at, userID)
	if err != nil {
		return nil, fmt.Errorf("orphanSeats %d %d: notes: %w", accountID, userID, err)
	}
	return seats, nil
}

// stopHandedLinks voids, for why, the one-tap links userID was sent to
// answer, as an owner, the pending confirmations of the account's seats
// whose human left (askOwners): orphanSeats voids the links of userID's
// own seats only, and a handed-over link answers for the seat whoever
// holds it.
func stopHandedLinks(ctx context.Context, q querier, accountID, userID int64, at time.Time, why LinkStop) error {
	_, err := q.Exec(ctx, `UPDATE onetap_tokens t SET used_at = $3, stopped = $4
		FROM parties p, confirmations c
		WHERE p.account_id = $1 AND c.room_id = p.room_id AND c.side = p.side AND c.status = 'pending'
		  AND t.room_id = c.room_id AND t.confirmation_id = c.id AND t.used_at IS NULL AND t.user_id = $2`,
		accountID, userID, at, why)
	if err != nil {
		return fmt.Errorf("stopHandedLinks %d %d: %w", accountID, userID, err)
	}
	return nil
}

func deleteMembership(ctx context.Context, q querier, accountID, userID int64) error {
	tag, err := q.Exec(ctx, `DELETE FROM memberships WHERE account_id = $1 AND user_id = $2`, accountID, userID)
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	if err != nil {
		return fmt.Errorf("deleteMembership %d %d: %w", accountID, userID, err)
	}
	return nil
}

// selectRoomNotes lists the notes of a room's side, oldest first.
func selectRoomNotes(ctx context.Context, q querier, roomID int64, side string) ([]RoomNote, error) {
	rows, err := q.Query(ctx, `SELECT at, kind, email FROM room_notes WHERE room_id = $1 AND side = $2 ORDER BY id`, roomID, side)
	if err != nil {
		return nil, fmt.Errorf("selectRoomNotes %d: %w", roomID, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[RoomNote])
	if err != nil {
		return nil, fmt.Errorf("selectRoomNotes %d: %w", roomID, err)
	}
	return out, nil
}

// selectSeatAccess reads, for each seat of the room in an account userID
// belongs to (not one being deleted: its memberships give nothing of it),
// the side, userID's role there and the seat's human (0:
// nobody), the one they answer for first.
func selectSeatAccess(ctx context.Context, q querier, userID, roomID int64) ([]seatAccess, error) {
	rows, err := q.Query(ctx, `SELECT p.side, m.role, coalesce(p.owner_user_id, 0), coalesce(u.email, '') FROM parties p
		JOIN memberships m ON m.account_id = p.account_id AND m.user_id = $2
		JOIN accounts a ON a.id = p.account_id AND a.deleting_at IS NULL
		LEFT JOIN users u ON u.id = p.owner_user_id
		WHERE p.room_id = $1
		ORDER BY coalesce(p.owner_user_id = $2, false) DESC, p.side`, roomID, userID)
	if err != nil {
		return nil, fmt.Errorf("selectSeatAccess %d: %w", roomID, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[seatAccess])
	if err != nil {
		return nil, fmt.Errorf("selectSeatAccess %d: %w", roomID, err)
	}
	return out, nil
}

// --- invitations

const invitationColumns = `i.id, i.account_id, a.slug, a.name, i.email, i.role, coalesce(u.email, ''), i.created_at, i.sent_at,
	i.expires_at, i.accepted_at, i.revoked_at`

const invitationJoins = `account_invitations i JOIN accounts a ON a.id = i.account_id LEFT JOIN users u ON u.id = i.invited_by`

func scanInvitation(row pgx.Row) (MemberInvitation, error) {
	var v MemberInvitation
	err := row.Scan(&v.ID, &v.AccountID, &v.AccountSlug, &v.AccountName, &v.Email, &v.Role, &v.InvitedBy, &v.CreatedAt,
		&v.SentAt, &v.ExpiresAt, &v.AcceptedAt, &v.RevokedAt)
	return v, err
}

// insertInvitation adds a pending invitation; a pending one for the same
// address is a conflict.
func insertInvitation(ctx context.Context, q querier, accountID int64, email string, role MemberRole, tokenHash []byte,
	invitedBy int64, at, expires time.Time) (int64, error) {
	var by *int64
	if invitedBy != 0 {
		by = &invitedBy
	}
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO account_invitations (account_id, email, role, token_hash, invited_by, created_at, sent_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6, $7) RETURNING id`, accountID, email, role, tokenHash, by, at, expires).Scan(&id)
	if isUniqueViolation(err, "account_invitations_pending") {
		return 0, refuse(ErrConflict, "error.invitation_pending", "email: %s already has a pending invitation; resend it from the list of invitations", email)
	}
	if err != nil {
		return 0, fmt.Errorf("insertInvitation %d: %w", accountID, err)
	}
	return id, nil
}

// selectInvitation reads the account's invitation id, locked if lock.
func selectInvitation(ctx context.Context, q querier, accountID, id int64, lock bool) (MemberInvitation, error) {
	sql := `SELECT ` + invitationColumns + ` FROM ` + invitationJoins + ` WHERE i.account_id = $1 AND i.id = $2`
	if lock {
		sql += ` FOR UPDATE OF i`
	}
	v, err := scanInvitation(q.QueryRow(ctx, sql, accountID, id))
	if err != nil {
		return MemberInvitation{}, fmt.Errorf("selectInvitation %d %d: %w", accountID, id, err)
	}
	return v, nil
}

// selectInvitationByToken reads the invitation whose link hashes to
// tokenHash, locked if lock.
func selectInvitationByToken(ctx context.Context, q querier, tokenHash []byte, lock bool) (MemberInvitation, error) {
	sql := `SELECT ` + invitationColumns + ` FROM ` + invitationJoins + ` WHERE i.token_hash = $1`
	if lock {
		sql += ` FOR UPDATE OF i`
	}
	v, err := scanInvitation(q.QueryRow(ctx, sql, tokenHash))
	if err != nil {
		return MemberInvitation{}, fmt.Errorf("selectInvitationByToken: %w", err)
	}
	return v, nil
}

// selectPendingInvitations lists the account's invitations not yet
// accepted nor revoked (expired ones included), newest first.
func selectPendingInvitations(ctx context.Context, q querier, accountID int64) ([]MemberInvitation, error) {
	rows, err := q.Query(ctx, `SELECT `+invitationColumns+` FROM `+invitationJoins+`
		WHERE i.account_id = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL ORDER BY i.id DESC`, accountID)
	if err != nil {
		return nil, fmt.Errorf("selectPendingInvitations %d: %w", accountID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (MemberInvitation, error) { return scanInvitation(row) })
	if err != nil {
		return nil, fmt.Errorf("selectPendingInvitations %d: %w", accountID, err)
	}
	return out, nil
}

// renewInvitation gives the invitation a new link and expiry (a resend),
// sent by sentBy, who invites from now on.
func renewInvitation(ctx context.Context, q querier, accountID, id int64, tokenHash []byte, at, expires time.Time, sentBy int64) error {
	_, err := q.Exec(ctx, `UPDATE account_invitations SET token_hash = $3, sent_at = $4, expires_at = $5, invited_by = $6
		WHERE account_id = $1 AND id = $2`, accountID, id, tokenHash, at, expires, sentBy)
	if err != nil {
		return fmt.Errorf("renewInvitation %d %d: %w", accountID, id, err)
	}
	return nil
}

func revokeInvitation(ctx context.Context, q querier, accountID, id int64, at time.Time) error {
	_, err := q.Exec(ctx, `UPDATE account_invitations SET revoked_at = $3 WHERE account_id = $1 AND id = $2`, accountID, id, at)
	if err != nil {
		return fmt.Errorf("revokeInvitation %d %d: %w", accountID, id, err)
	}
	return nil
}

// revokeInvitationsBy revokes the invitations userID sent in the account
// for one of roles that were neither accepted nor revoked (an expired one
// too: it could be sent again), and returns them.
func revokeInvitationsBy(ctx context.Context, q querier, accountID, userID int64, roles []string, at time.Time) ([]MemberInvitation, error) {
	rows, err := q.Query(ctx, `UPDATE account_invitations SET revoked_at = $3
		WHERE account_id = $1 AND invited_by = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND role = ANY($4)
		RETURNING email, role`, accountID, userID, at, roles)
	if err != nil {
		return nil, fmt.Errorf("revokeInvitationsBy %d %d: %w", accountID, userID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (MemberInvitation, error) {
		var v MemberInvitation
		err := row.Scan(&v.Email, &v.Role)
		return v, err
	})
	if err != nil {
		return nil, fmt.Errorf("revokeInvitationsBy %d %d: %w", accountID, userID, err)
	}
	return out, nil
}

func acceptInvitation(ctx context.Context, q querier, accountID, id, userID int64, at time.Time) error {
	_, err := q.Exec(ctx, `UPDATE account_invitations SET accepted_at = $3, accepted_by = $4 WHERE account_id = $1 AND id = $2`,
		accountID, id, at, userID)
	if err != nil {
		return fmt.Errorf("acceptInvitation %d %d: %w", accountID, id, err)
	}
	return nil
}

// insertMembershipIfNone adds the membership; false when the user is
// already a member.
func insertMembershipIfNone(ctx context.Context, q querier, accountID, userID int64, role MemberRole) (bool, error) {
	tag, err := q.Exec(ctx, `INSERT INTO memberships (account_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
		accountID, userID, role)
	if err != nil {
		return false, fmt.Errorf("insertMembershipIfNone %d %d: %w", accountID, userID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// nthLatestMemberInviteEmail is nthLatestInviteEmail for invitations to
// join: it forgets the mails from before since, and returns when the n-th
// latest since then was sent (zero when fewer).
func nthLatestMemberInviteEmail(ctx context.Context, q querier, accountID int64, since time.Time, n int) (time.Time, error) {
	var at time.Time
	err := q.QueryRow(ctx, `WITH forgotten AS (DELETE FROM member_invite_emails WHERE account_id = $1 AND created_at <= $2)
		SELECT created_at FROM member_invite_emails WHERE account_id = $1 AND created_at > $2
		ORDER BY created_at DESC OFFSET $3 LIMIT 1`, accountID, since, n-1).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("nthLatestMemberInviteEmail %d: %w", accountID, err)
	}
	return at, nil
}

func insertMemberInviteEmail(ctx context.Context, q querier, accountID, invitationID int64, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO member_invite_emails (account_id, created_at, invitation_id) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, accountID, at, invitationID)
	if err != nil {
		return fmt.Errorf("insertMemberInviteEmail %d: %w", accountID, err)
	}
	return nil
}

// selectMemberEmail reports whether email is a member of the account.
func selectIsMemberEmail(ctx context.Context, q querier, accountID int64, email string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE m.account_id = $1 AND u.email = $2)`, accountID, email).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("selectIsMemberEmail %d: %w", accountID, err)
	}
	return ok, nil
}

// pendingRef is a pending confirmation of a seat.
type pendingRef struct {
	RoomID int64
	Side   string
	ID     string
}

// selectSeatsPending lists the pending confirmations of the seats.
func selectSeatsPending(ctx context.Context, q querier, seats []seatRef) ([]pendingRef, error) {
	ids, sides := make([]int64, len(seats)), make([]string, len(seats))
	for i, s := range seats {
		ids[i], sides[i] = s.RoomID, s.Side
	}
	rows, err := q.Query(ctx, `SELECT c.room_id, c.side, c.id FROM confirmations c, unnest($1::bigint[], $2::text[]) AS s(room_id, side)
		WHERE c.room_id = s.room_id AND c.side = s.side AND c.status = 'pending' ORDER BY c.room_id, c.side`, ids, sides)
	if err != nil {
		return nil, fmt.Errorf("selectSeatsPending: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[pendingRef])
	if err != nil {
		return nil, fmt.Errorf("selectSeatsPending: %w", err)
	}
	return out, nil
}

// selectOwnerIDs lists the account's owners.
func selectOwnerIDs(ctx context.Context, q querier, accountID int64) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner' ORDER BY user_id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("selectOwnerIDs %d: %w", accountID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("selectOwnerIDs %d: %w", accountID, err)
	}
	return ids, nil
}

// selectInviteReader is how an invitation (to join an account, or a
// room's) speaks to email: in their language and zone when they are a
// user already, else in
// the inviter's language (inviterID; 0: an operator) and UTC. A language
// is a person's choice, else the one their pages were last shown in
// (page_language: their browser's), else their provider's locale.
func selectInviteReader(ctx context.Context, q querier, email string, inviterID int64) (lang, zone string, err error) {
	err = q.QueryRow(ctx, `SELECT coalesce(r.language, r.page_language, r.oidc_locale, i.language, i.page_language, i.oidc_locale, ''), coalesce(r.time_zone, 'UTC')
		FROM (SELECT) one LEFT JOIN users r ON r.email = $1 LEFT JOIN users i ON i.id = $2`, email, inviterID).Scan(&lang, &zone)
	if err != nil {
		return "", "", fmt.Errorf("selectInviteReader: %w", err)
	}
	return lang, zone, nil
}

// selectJustSignedUp is the account userID signed up a moment ago with
// this slug and name (found: false if none), the user's row locked first
// so that a sign-up sent twice at once waits for the first: the same form
// sent again is answered with the account it made.
func selectJustSignedUp(ctx context.Context, q querier, userID int64, slug, name string) (Account, bool, error) {
	if _, err := q.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
		return Account{}, false, fmt.Errorf("selectJustSignedUp %d: %w", userID, err)
	}
	acct := Account{Slug: slug, Name: name}
	err := q.QueryRow(ctx, `SELECT a.id, a.created_at FROM accounts a
		JOIN memberships m ON m.account_id = a.id AND m.user_id = $1 AND m.role = 'owner'
		WHERE a.slug = $2 AND a.name = $3 AND a.created_at > now() - interval '1 minute'`, userID, slug, name).Scan(&acct.ID, &acct.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, false, nil
	}
	if err != nil {
		return Account{}, false, fmt.Errorf("selectJustSignedUp %d: %w", userID, err)
	}
	return acct, true, nil
}
