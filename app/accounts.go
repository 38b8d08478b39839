package app

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/negotiation"
)

// Account is a tenant: a team or a person whose agents negotiate for it.
type Account struct {
	ID        int64
	Slug      string // in URLs: /mcp/{slug}
	Name      string
	CreatedAt time.Time
}

// MemberRole is what a member may do in an account.
type MemberRole string

const (
	// MemberRoleOwner manages the account: members, agents and their keys.
	MemberRoleOwner MemberRole = "owner"
	// MemberRoleMember confirms the moves of the agents they own.
	MemberRoleMember MemberRole = "member"
	// MemberRoleAdmin (access.go) sees every room and manages members and agents.
)

// Membership is a user's place in an account.
type Membership struct {
	AccountID   int64
	AccountSlug string
	AccountName string
	UserID      int64
	Role        MemberRole
	// Operator may see the service's internals (jobs, delivery logs).
	Operator bool
}

// Accounts holds the use cases of accounts, users, memberships, agents and
// agent keys.
type Accounts struct {
	pool *pgxpool.Pool
	keys *keyCache
	now  func() time.Time
	// simulated: now is a test's clock that stands for the database's
	// too (the sessions' dbMoment).
	simulated bool
	teams     *teams    // sign-up and invitations (UseTeams); nil: not set up
	dev       devIssuer // taasky dev's embedded issuer (UseDevIssuer); zero: none
	caps      Caps      // SetCaps; zero: none
}

// NewAccounts returns the accounts use cases over pool.
func NewAccounts(pool *pgxpool.Pool) *Accounts {
	return &Accounts{pool: pool, keys: newKeyCache(), now: time.Now}
}

// CreateAccount creates an account and makes ownerEmail its owner, creating
// that user (by email, to be linked at their first login) if needed. All of
// it happens, or none.
func (a *Accounts) CreateAccount(ctx context.Context, slug, name, ownerEmail string) (Account, error) {
	if err := checkSlug(slug); err != nil {
		return Account{}, err
	}
	name, err := checkName("name", name)
	if err != nil {
		return Account{}, err
	}
	email, err := normalizeEmail("owner email", ownerEmail)
	if err != nil {
		return Account{}, err
	}
	var acct Account
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		userID, err := ensureUserByEmail(ctx, tx, email)
		if err != nil {
			return err
		}
		if acct, err = insertAccount(ctx, tx, slug, name); err != nil {
			return err
		}
		if err := insertMembership(ctx, tx, acct.ID, userID, MemberRoleOwner); err != nil {
			return err
		}
		// Its log starts as a sign-up's does, by the operator, naming the
		// owner they made.
		return insertAudit(ctx, tx, acct.ID, 0, AuditAccountCreated, a.dbMoment(), map[string]string{"slug": slug, "name": name, "owner": email})
	})
	if err != nil {
		return Account{}, fmt.Errorf("create account: %w", err)
	}
	return acct, nil
}

// AccountBySlug returns the account with slug.
func (a *Accounts) AccountBySlug(ctx context.Context, slug string) (Account, error) {
	acct, err := selectAccountBySlug(ctx, a.pool, slug)
	if err != nil {
		return Account{}, fmt.Errorf("account by slug: %w", err)
	}
	return acct, nil
}

// Memberships returns the accounts userID belongs to, by slug.
func (a *Accounts) Memberships(ctx context.Context, userID int64) ([]Membership, error) {
	ms, err := selectMemberships(ctx, a.pool, userID)
	if err != nil {
		return nil, fmt.Errorf("memberships: %w", err)
	}
	return ms, nil
}

var slugRule = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$`)

// checkSlug checks a slug the operator gives (account create --slug);
// the sign-up form's is checkAddress.
func checkSlug(slug string) error {
	if !slugRule.MatchString(slug) {
		return Errorf(ErrInvalid, "slug: must be 3–40 characters of a–z, 0–9 and '-', starting and ending with a letter or digit (got %q)", slug)
	}
	return nil
}

// fieldKeys are the catalog's words for checkName's and normalizeEmail's
// refusals, by the field they name (its name is part of the text).
var fieldKeys = map[string]string{
	"name length":         "error.name_length",
	"agent name length":   "error.agent_name_length",
	"name readable":       "error.name_readable",
	"agent name readable": "error.agent_name_readable",
	"email address":       "error.email_address",
	"owner email address": "error.owner_email_address",
}

// checkName trims a display name and checks it is 1–80 readable characters.
func checkName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	n := utf8.RuneCountInString(name)
	if n < 1 || n > 80 || !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
		return "", &Error{Code: ErrInvalid, Message: fmt.Sprintf("%s: must be 1–80 characters, without control characters (got %d)", field, n),
			Words: negotiation.Words{Key: fieldKeys[field+" length"], Args: []any{n}}}
	}
	// The other side reads it as who invites them: held to a room title's
	// rules, so that it cannot hide or pass for another name.
	if !negotiation.ReadableLine(name) || negotiation.Deceptive(name) != "" {
		return "", &Error{Code: ErrInvalid, Message: fmt.Sprintf("%s: readable text only, without invisible or direction-changing characters or words that mix alphabets", field),
			Words: negotiation.Words{Key: fieldKeys[field+" readable"]}}
	}
	return name, nil
}

// normalizeEmail checks that s is a bare address (name@example.com, no
// display name) and returns it lowercased, as users are stored.
func normalizeEmail(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Address != s || addr.Name != "" || len(s) > 254 || !strings.Contains(s, "@") {
		return "", &Error{Code: ErrInvalid, Message: fmt.Sprintf("%s: must be an email address like name@example.com (got %q)", field, s),
			Words: negotiation.Words{Key: fieldKeys[field+" address"], Args: []any{s}}}
	}
	return strings.ToLower(s), nil
}

// notFound turns pgx.ErrNoRows into an ErrNotFound *Error: key is its
// words in the catalog ("" for one only an agent or the operator meets),
// format its English.
func notFound(err error, key, format string, args ...any) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return refuse(ErrNotFound, key, format, args...)
	}
	return err
}
