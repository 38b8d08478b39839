package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/unicode/norm"

	"github.com/taasky/taasky/negotiation"
)

// Sign-up: a signed-in person whose email the issuer verified creates an
// account and owns it. The slug is derived from the name (SuggestSlug) and
// may be edited; it follows the accounts' slug rule, must be free, and
// may not be a word the service's own paths use. A person may create at
// most SignupDailyCap accounts in any 24 hours.

// reservedSlugs are words an account's slug may not be: paths of the
// service, and names that would pass for it.
var reservedSlugs = map[string]bool{
	"admin": true, "api": true, "mcp": true, "login": true, "logout": true, "static": true, "well-known": true,
	"auth": true, "settings": true, "signup": true, "join": true, "rooms": true, "events": true, "accounts": true,
	"account": true, "dev-oidc": true, "healthz": true, "readyz": true, "metrics": true, "verify": true,
	"taasky": true, "www": true, "root": true, "support": true, "help": true, "oauth": true, "unsubscribe": true,
}

// SuggestSlug derives a slug from an account's name: lowercase letters and
// digits, accents dropped, other runs of characters turned into one '-',
// at most 40 characters ("" when nothing is left).
func SuggestSlug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(strings.ToLower(name)) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	s := b.String()
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	return s
}

// checkAddress is checkSlug for the sign-up form, whose field for the slug
// is labelled "Address" (signup.slug): its refusals say that word.
func checkAddress(slug string) error {
	if !slugRule.MatchString(slug) {
		return refuse(ErrInvalid, "error.slug", "address: must be 3–40 characters of a–z, 0–9 and '-', starting and ending with a letter or digit (got %q)", slug)
	}
	if reservedSlugs[slug] {
		return refuse(ErrInvalid, "error.slug_reserved", "address: %q is a word Taasky keeps for itself; choose another", slug)
	}
	return nil
}

// fieldCheck is a form field's name and its check's refusal (nil: none).
type fieldCheck struct {
	field string
	err   error
}

// fieldFaults is a form's checks as one refusal: nil when none refused,
// the refusal when one did, and when several did, the first with every
// one as a Fault (its field, its message and words), so that the form
// says them all at once.
func fieldFaults(checks ...fieldCheck) error {
	var first *Error
	var faults []negotiation.Fault
	for _, c := range checks {
		if c.err == nil {
			continue
		}
		e, ok := errors.AsType[*Error](c.err)
		if !ok {
			return c.err
		}
		if first == nil {
			first = e
		}
		faults = append(faults, negotiation.Fault{Field: c.field, Rule: negotiation.RuleInvalidValue, Message: e.Message, Words: e.Words})
	}
	switch {
	case first == nil:
		return nil
	case len(faults) == 1:
		return first
	}
	return &Error{Code: first.Code, Message: first.Message, Faults: faults, Words: first.Words}
}

// SignUp creates an account named name with slug, owned by userID.
func (a *Accounts) SignUp(ctx context.Context, userID int64, name, slug string) (Account, error) {
	if err := a.teamsOn(); err != nil {
		return Account{}, err
	}
	name, nameErr := checkName("name", name)
	slug = strings.TrimSpace(slug)
	if err := fieldFaults(fieldCheck{"name", nameErr}, fieldCheck{"slug", checkAddress(slug)}); err != nil {
		return Account{}, err
	}
	var acct Account
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		u, err := selectUserKept(ctx, tx, userID, true)
		if errors.Is(err, pgx.ErrNoRows) {
			return refuse(ErrNotFound, "error.profile_gone", "profile: there is no such person (deleted already?)")
		} else if err != nil {
			return err
		}
		if !u.EmailVerified {
			return refuse(ErrUnauthorized, "error.signup_unverified", "email: your identity provider has not verified %s; only a verified address may own an account", u.Email)
		}
		var again bool
		if acct, again, err = selectJustSignedUp(ctx, tx, userID, slug, name); err != nil || again {
			return err // a double click's second sign-up: the first's account
		}
		now := a.now()
		if cap := a.teams.signupCap; cap > 0 {
			n, first, err := countSignupsSince(ctx, tx, userID, emailHashes(a.teams.emailKey, u.Email), now.Add(-24*time.Hour))
			if err != nil {
				return err
			}
			if n >= cap {
				return refuse(ErrConflict, "error.signup_cap", plural(n,
					"you have created %d account in the last 24 hours, the most allowed; try again from %s",
					"you have created %d accounts in the last 24 hours, the most allowed; try again from %s"),
					n, Moment(first.Add(24*time.Hour)))
			}
		}
		if acct, err = insertAccount(ctx, tx, slug, name); ErrorCodeOf(err) == ErrConflict {
			return refuse(ErrConflict, "error.slug_taken", "address: %q is taken by another account; choose another", slug)
		} else if err != nil {
			return err
		}
		if err := insertMembership(ctx, tx, acct.ID, userID, MemberRoleOwner); err != nil {
			return err
		}
		if err := insertSignup(ctx, tx, emailHash(a.teams.emailKey, u.Email), now); err != nil {
			return err
		}
		return insertAudit(ctx, tx, acct.ID, userID, AuditAccountCreated, a.dbMoment(), map[string]string{"slug": slug, "name": name})
	})
	if err != nil {
		return Account{}, fmt.Errorf("sign up: %w", err)
	}
	return acct, nil
}
