package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// The SQL of accounts, users (and their settings: the time zone) and
// memberships. Lookups that find nothing return pgx.ErrNoRows (wrapped),
// except selectAccountBySlug, whose not-found is the same for every caller.

func insertAccount(ctx context.Context, q querier, slug, name string) (Account, error) {
	acct := Account{Slug: slug, Name: name}
	err := q.QueryRow(ctx,
		`INSERT INTO accounts (slug, name) VALUES ($1, $2) RETURNING id, created_at`,
		slug, name).Scan(&acct.ID, &acct.CreatedAt)
	if isUniqueViolation(err, "accounts_slug_key") {
		return Account{}, refuse(ErrConflict, "error.slug_taken_already", "account slug already taken: %s", slug)
	}
	if err != nil {
		return Account{}, fmt.Errorf("insertAccount %s: %w", slug, err)
	}
	return acct, nil
}

// isAccountDeleting: err is the refusal of an account being deleted.
func isAccountDeleting(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Words.Key == "lv17_error.account_deleting"
}

// selectAccountBySlug is the account with slug; one being deleted
// (account_delete.go) is refused: nothing more is done in it.
func selectAccountBySlug(ctx context.Context, q querier, slug string) (Account, error) {
	acct := Account{Slug: slug}
	var deleting bool
	if !storableText(slug) {
		return Account{}, refuse(ErrNotFound, "error.account_not_found", "account not found: %s", strconv.QuoteToASCII(slug))
	}
	err := q.QueryRow(ctx,
		`SELECT id, name, created_at, deleting_at IS NOT NULL FROM accounts WHERE slug = $1`,
		slug).Scan(&acct.ID, &acct.Name, &acct.CreatedAt, &deleting)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, refuse(ErrNotFound, "error.account_not_found", "account not found: %s", slug)
	}
	if err == nil && deleting {
		return Account{}, refuse(ErrNotFound, "lv17_error.account_deleting",
			"account: %s is being deleted; its open rooms are being closed, and nothing more can be done in it", acct.Name)
	}
	if err != nil {
		return Account{}, fmt.Errorf("selectAccountBySlug %s: %w", slug, err)
	}
	return acct, nil
}

// selectAccountName is the name of the account with id.
func selectAccountName(ctx context.Context, q querier, id int64) (string, error) {
	var name string
	if err := q.QueryRow(ctx, `SELECT name FROM accounts WHERE id = $1`, id).Scan(&name); err != nil {
		return "", fmt.Errorf("selectAccountName %d: %w", id, err)
	}
	return name, nil
}

// selectInviter reads, in one statement, the name of the inviting account
// (nil: it was deleted) and the time zone setting of the human who answers
// for it, userID (nil: none, or no such user).
func selectInviter(ctx context.Context, q querier, accountID int64, userID *int64) (name, zone *string, err error) {
	err = q.QueryRow(ctx, `SELECT (SELECT name FROM accounts WHERE id = $1), (SELECT time_zone FROM users WHERE id = $2)`,
		accountID, userID).Scan(&name, &zone)
	if err != nil {
		return nil, nil, fmt.Errorf("selectInviter %d: %w", accountID, err)
	}
	return name, zone, nil
}

// selectUserZone is a user's time zone setting ("UTC" unless they chose
// one; "" for no such user).
func selectUserZone(ctx context.Context, q querier, userID int64) (string, error) {
	var zone string
	err := q.QueryRow(ctx, `SELECT time_zone FROM users WHERE id = $1`, userID).Scan(&zone)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("selectUserZone %d: %w", userID, err)
	}
	return zone, nil
}

func insertMembership(ctx context.Context, q querier, accountID, userID int64, role MemberRole) error {
	_, err := q.Exec(ctx,
		`INSERT INTO memberships (account_id, user_id, role) VALUES ($1, $2, $3)`,
		accountID, userID, role)
	if err != nil {
		return fmt.Errorf("insertMembership %d %d: %w", accountID, userID, err)
	}
	return nil
}

// membershipSQL reads memberships with their account's slug and name, in
// scanMembership's order; the callers add the WHERE. An account being
// deleted (account_delete.go) is left out: a membership of it gives
// nothing of it any more (selectDeletingAccountNames tells its members).
const membershipSQL = `SELECT m.account_id, a.slug, a.name, m.user_id, m.role, m.operator
		FROM memberships m JOIN accounts a ON a.id = m.account_id AND a.deleting_at IS NULL`

func scanMembership(row pgx.Row) (Membership, error) {
	var m Membership
	err := row.Scan(&m.AccountID, &m.AccountSlug, &m.AccountName, &m.UserID, &m.Role, &m.Operator)
	return m, err
}

func selectMemberships(ctx context.Context, q querier, userID int64) ([]Membership, error) {
	rows, err := q.Query(ctx, membershipSQL+` WHERE m.user_id = $1 ORDER BY a.slug`, userID)
	if err != nil {
		return nil, fmt.Errorf("selectMemberships %d: %w", userID, err)
	}
	ms, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Membership, error) { return scanMembership(row) })
	if err != nil {
		return nil, fmt.Errorf("selectMemberships %d: %w", userID, err)
	}
	return ms, nil
}

// selectMemberByEmail returns the id of the account's member with email.
func selectMemberByEmail(ctx context.Context, q querier, accountID int64, email string) (int64, error) {
	var userID int64
	err := q.QueryRow(ctx, `
		SELECT u.id FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE m.account_id = $1 AND u.email = $2`, accountID, email).Scan(&userID)
	if err != nil {
		return 0, fmt.Errorf("selectMemberByEmail %d: %w", accountID, err)
	}
	return userID, nil
}

// selectOwnerEmails lists the emails of account owners, first created
// first, at most limit of them.
func selectOwnerEmails(ctx context.Context, q querier, limit int) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT ON (u.id) u.email FROM users u
		JOIN memberships m ON m.user_id = u.id AND m.role = 'owner'
		ORDER BY u.id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("selectOwnerEmails: %w", err)
	}
	emails, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("selectOwnerEmails: %w", err)
	}
	return emails, nil
}

// ensureUserByEmail returns the id of the user with email, creating it.
// An insert of the same address by a transaction not yet committed is
// waited for and is then a conflict, but the statement's own SELECT reads
// the snapshot taken before that commit, so it finds no row either: the
// statement then runs again, with a snapshot that has the row (or, should
// it be gone again, inserts it).
func ensureUserByEmail(ctx context.Context, q querier, email string) (int64, error) {
	var id int64
	var err error
	for range 3 {
		err = q.QueryRow(ctx, `
		WITH new AS (
			INSERT INTO users (email) VALUES ($1)
			ON CONFLICT (email) DO NOTHING
			RETURNING id
		)
		SELECT id FROM new
		UNION ALL
		SELECT id FROM users WHERE email = $1
		LIMIT 1`, email).Scan(&id)
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
	}
	if err != nil {
		return 0, fmt.Errorf("ensureUserByEmail: %w", err)
	}
	return id, nil
}

const userColumns = `id, email, coalesce(oidc_issuer, ''), coalesce(oidc_subject, ''), time_zone, created_at, email_verified,
	coalesce(language, ''), coalesce(oidc_locale, ''), coalesce(page_language, '')`

func scanUser(row pgx.Row) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Email, &u.OIDCIssuer, &u.OIDCSubject, &u.TimeZone, &u.CreatedAt, &u.EmailVerified, &u.Language, &u.OIDCLocale,
		&u.PageLanguage)
	return u, err
}

func selectUserByID(ctx context.Context, q querier, id int64) (User, error) {
	u, err := scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil {
		return User{}, fmt.Errorf("selectUserByID %d: %w", id, err)
	}
	return u, nil
}

// selectUserKept is selectUserByID with the row locked FOR KEY SHARE (FOR
// UPDATE with exclusive): a membership the transaction adds for them then
// cannot meet a deletion of their profile (which locks the row first:
// this waits for it and finds no row, rather than the membership's insert
// failing on the row gone). A transaction that locks the row FOR UPDATE
// later (a sign-up: selectJustSignedUp) takes it so at once: two at once
// that each held the share the other's FOR UPDATE waited for deadlocked.
func selectUserKept(ctx context.Context, q querier, id int64, exclusive bool) (User, error) {
	lock := ` FOR KEY SHARE`
	if exclusive {
		lock = ` FOR UPDATE`
	}
	u, err := scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`+lock, id))
	if err != nil {
		return User{}, fmt.Errorf("selectUserKept %d: %w", id, err)
	}
	return u, nil
}

// selectUserByEmail locks the row for update when forUpdate (in a transaction).
func selectUserByEmail(ctx context.Context, q querier, email string, forUpdate bool) (User, error) {
	sql := `SELECT ` + userColumns + ` FROM users WHERE email = $1`
	if forUpdate {
		sql += ` FOR UPDATE`
	}
	u, err := scanUser(q.QueryRow(ctx, sql, email))
	if err != nil {
		return User{}, fmt.Errorf("selectUserByEmail: %w", err)
	}
	return u, nil
}

func selectUserByOIDC(ctx context.Context, q querier, issuer, subject string) (User, error) {
	u, err := scanUser(q.QueryRow(ctx,
		`SELECT `+userColumns+` FROM users WHERE oidc_issuer = $1 AND oidc_subject = $2`,
		issuer, subject))
	if err != nil {
		return User{}, fmt.Errorf("selectUserByOIDC: %w", err)
	}
	return u, nil
}

// selectUserEmail is the email of the user with id.
func selectUserEmail(ctx context.Context, q querier, id int64) (string, error) {
	var email string
	if err := q.QueryRow(ctx, `SELECT email FROM users WHERE id = $1`, id).Scan(&email); err != nil {
		return "", fmt.Errorf("selectUserEmail %d: %w", id, err)
	}
	return email, nil
}

// updateDisplayName keeps the name the issuer gave at the latest login
// (written only when it changed).
func updateDisplayName(ctx context.Context, q querier, userID int64, name string) error {
	if _, err := q.Exec(ctx, `UPDATE users SET display_name = $2 WHERE id = $1 AND display_name IS DISTINCT FROM $2`, userID, name); err != nil {
		return fmt.Errorf("updateDisplayName %d: %w", userID, err)
	}
	return nil
}

func insertUserOIDC(ctx context.Context, q querier, email, issuer, subject string) (User, error) {
	u, err := scanUser(q.QueryRow(ctx,
		`INSERT INTO users (email, oidc_issuer, oidc_subject, email_verified) VALUES ($1, $2, $3, true) RETURNING `+userColumns,
		email, issuer, subject))
	if err != nil {
		return User{}, fmt.Errorf("insertUserOIDC: %w", err)
	}
	return u, nil
}

func updateUserOIDC(ctx context.Context, q querier, userID int64, issuer, subject string) error {
	_, err := q.Exec(ctx,
		`UPDATE users SET oidc_issuer = $2, oidc_subject = $3, email_verified = true WHERE id = $1`,
		userID, issuer, subject)
	if err != nil {
		return fmt.Errorf("updateUserOIDC %d: %w", userID, err)
	}
	return nil
}

// releaseUserOIDC unlinks the user from their login (issuer, subject) and
// ends their sessions: the next verified sign-in with their address links
// again (ReleaseSignInAsOperator).
func releaseUserOIDC(ctx context.Context, q querier, userID int64) error {
	_, err := q.Exec(ctx, `WITH ended AS (DELETE FROM user_sessions WHERE user_id = $1)
		UPDATE users SET oidc_issuer = NULL, oidc_subject = NULL WHERE id = $1`, userID)
	if err != nil {
		return fmt.Errorf("releaseUserOIDC %d: %w", userID, err)
	}
	return nil
}

func updateUserTimeZone(ctx context.Context, q querier, userID int64, tz string) error {
	tag, err := q.Exec(ctx, `UPDATE users SET time_zone = $2 WHERE id = $1`, userID, tz)
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	if err != nil {
		return fmt.Errorf("updateUserTimeZone %d: %w", userID, err)
	}
	return nil
}

func updateUserLanguage(ctx context.Context, q querier, userID int64, lang string) error {
	tag, err := q.Exec(ctx, `UPDATE users SET language = nullif($2, '') WHERE id = $1`, userID, lang)
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	if err != nil {
		return fmt.Errorf("updateUserLanguage %d: %w", userID, err)
	}
	return nil
}

// updatePageLanguage notes the language the person's pages are shown in
// (users.page_language), while they have chosen none.
func updatePageLanguage(ctx context.Context, q querier, userID int64, lang string) error {
	if _, err := q.Exec(ctx, `UPDATE users SET page_language = $2 WHERE id = $1 AND language IS NULL AND page_language IS DISTINCT FROM $2`, userID, lang); err != nil {
		return fmt.Errorf("updatePageLanguage %d: %w", userID, err)
	}
	return nil
}

// updateUserClaims keeps what the identity provider said at a sign-in:
// its locale always (it stands in for a language the person did not
// choose), its zoneinfo only while the person's zone is still the
// default UTC.
func updateUserClaims(ctx context.Context, q querier, userID int64, locale, zone string) (User, error) {
	u, err := scanUser(q.QueryRow(ctx, `UPDATE users SET oidc_locale = nullif($2, ''),
		time_zone = CASE WHEN time_zone = 'UTC' AND $3 <> '' THEN $3 ELSE time_zone END
		WHERE id = $1 RETURNING `+userColumns, userID, locale, zone))
	if err != nil {
		return User{}, fmt.Errorf("updateUserClaims %d: %w", userID, err)
	}
	return u, nil
}

// selectIsOperator reports whether any of the user's memberships is
// flagged operator.
func selectIsOperator(ctx context.Context, q querier, userID int64) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memberships WHERE user_id = $1 AND operator)`, userID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("selectIsOperator %d: %w", userID, err)
	}
	return ok, nil
}

// updateOperator flags (or unflags) one membership; false when there is
// no such membership.
func updateOperator(ctx context.Context, q querier, accountID, userID int64, on bool) (bool, error) {
	tag, err := q.Exec(ctx, `UPDATE memberships SET operator = $3 WHERE account_id = $1 AND user_id = $2`, accountID, userID, on)
	if err != nil {
		return false, fmt.Errorf("updateOperator %d %d: %w", accountID, userID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// updateUserEmailIfFree sets the user's email, verified, unless another
// user has it (pgx.ErrNoRows then; a unique violation if one took it at
// the same moment).
func updateUserEmailIfFree(ctx context.Context, q querier, userID int64, email string) (User, error) {
	u, err := scanUser(q.QueryRow(ctx,
		`UPDATE users SET email = $2, email_verified = true
		WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM users WHERE email = $2) RETURNING `+userColumns, userID, email))
	if err != nil {
		return User{}, fmt.Errorf("updateUserEmailIfFree %d: %w", userID, err)
	}
	return u, nil
}

// updateEmailVerified records what the issuer said of the email at a
// returning user's sign-in, and returns the user as they are now.
func updateEmailVerified(ctx context.Context, q querier, userID int64, verified bool) (User, error) {
	u, err := scanUser(q.QueryRow(ctx,
		`UPDATE users SET email_verified = $2 WHERE id = $1 RETURNING `+userColumns, userID, verified))
	if err != nil {
		return User{}, fmt.Errorf("updateEmailVerified %d: %w", userID, err)
	}
	return u, nil
}
