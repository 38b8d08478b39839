package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/taasky/taasky/internal/tz"
)

// User is a person, across accounts. A user created by email (an account's
// owner named before they ever logged in) has no OIDC identity until their
// first login links one.
type User struct {
	ID          int64
	Email       string // lowercased
	OIDCIssuer  string // "" until the first login
	OIDCSubject string
	TimeZone    string // IANA name, e.g. "Europe/Paris"
	CreatedAt   time.Time
	// EmailVerified: the issuer said so at the last sign-in. Only a
	// verified person may own or join an account.
	EmailVerified bool
	// Language is the person's choice of language (a BCP 47 tag), "" for
	// none; OIDCLocale the identity provider's locale claim at the last
	// sign-in, which stands in until they choose.
	Language   string
	OIDCLocale string
	// PageLanguage is the language their pages were last shown in while
	// they had chosen none (the provider's locale if Taasky speaks it,
	// else their browser's), "" if never: their mails speak it, since a
	// worker that writes one has no browser to ask (NotePageLanguage).
	PageLanguage string
}

// OIDCIdentity is what a verified ID token says about the person logging in.
type OIDCIdentity struct {
	Issuer        string
	Subject       string
	Email         string
	EmailVerified bool
	// Name is the person's name as the issuer gives it ("name" claim; ""
	// for none): a receipt names the human who confirmed by it, never by
	// their email.
	Name string
	// Locale and ZoneInfo are the optional claims of the same names:
	// the person's language and IANA time zone at their provider.
	Locale   string
	ZoneInfo string
}

// UserByEmail returns the user with email (compared lowercased).
func (a *Accounts) UserByEmail(ctx context.Context, email string) (User, error) {
	email, err := normalizeEmail("email", email)
	if err != nil {
		return User{}, err
	}
	u, err := selectUserByEmail(ctx, a.pool, email, false)
	if err != nil {
		return User{}, fmt.Errorf("user by email: %w", notFound(err, "", "no user with email %s", email))
	}
	return u, nil
}

// UserByOIDC returns the user linked to the OIDC identity (issuer, subject).
func (a *Accounts) UserByOIDC(ctx context.Context, issuer, subject string) (User, error) {
	u, err := selectUserByOIDC(ctx, a.pool, issuer, subject)
	if err != nil {
		return User{}, fmt.Errorf("user by oidc: %w", notFound(err, "", "no user for this login"))
	}
	return u, nil
}

// LoginOIDC returns the user for a verified ID token. On a first login, it
// links the identity to the user already created for the email (so the person
// joins the accounts they were made owner of) or creates a user. Linking needs
// an email the provider verified: otherwise anyone able to claim an address at
// their provider could take over the accounts of its owner.
func (a *Accounts) LoginOIDC(ctx context.Context, id OIDCIdentity) (User, error) {
	if id.Issuer == "" || id.Subject == "" {
		return User{}, refuse(ErrInvalid, "error.login_identity", "login: the identity has no issuer or subject")
	}
	u, err := a.loginOIDC(ctx, id)
	if isUniqueViolation(err, "users_email_key") || isUniqueViolation(err, "users_oidc_issuer_oidc_subject_key") {
		u, err = a.loginOIDC(ctx, id) // a concurrent first login won: use its row
	}
	if err != nil {
		return User{}, fmt.Errorf("login: %w", err)
	}
	if name := displayName(id.Name); name != "" {
		if err := updateDisplayName(ctx, a.pool, u.ID, name); err != nil {
			return User{}, fmt.Errorf("login: %w", err)
		}
	}
	return a.keepClaims(ctx, u, id)
}

// keepClaims stores the sign-in's locale claim (a well-formed language
// tag only) and its zoneinfo claim (a zone Go knows, taken while the
// person's zone is the default UTC); a claim that is neither is ignored.
func (a *Accounts) keepClaims(ctx context.Context, u User, id OIDCIdentity) (User, error) {
	locale := strings.TrimSpace(id.Locale)
	if !languageTag.MatchString(locale) {
		locale = ""
	}
	zone := strings.TrimSpace(id.ZoneInfo)
	if _, err := tz.Load(zone); err != nil || zone == "UTC" {
		zone = ""
	}
	if locale == u.OIDCLocale && (zone == "" || u.TimeZone != "UTC") {
		return u, nil
	}
	u, err := updateUserClaims(ctx, a.pool, u.ID, locale, zone)
	if err != nil {
		return User{}, fmt.Errorf("login: %w", err)
	}
	return u, nil
}

// displayName is the issuer's name claim kept as a display name: one line
// of text, at most 200 characters ("" when it is not that).
func displayName(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > 200 || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return ""
	}
	return s
}

// languageTag is the shape of a BCP 47 language tag ("de", "pt-BR",
// "zh-Hant-TW"); which languages there are words for is the doors' to
// say.
var languageTag = regexp.MustCompile(`^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}$`)

// NotePageLanguage keeps the language a door showed the person's page in
// (a tag of the languages it has words for) while they have chosen none,
// for the mails written to them or for them later (User.PageLanguage).
// The door calls it only when the language differs from the user's
// PageLanguage, so a page costs no write while it stays the same.
func (a *Accounts) NotePageLanguage(ctx context.Context, userID int64, lang string) error {
	if !languageTag.MatchString(lang) {
		return refuse(ErrInvalid, "error.language", "language: must be a language tag like de or fr (got %q)", lang)
	}
	if err := updatePageLanguage(ctx, a.pool, userID, lang); err != nil {
		return fmt.Errorf("note page language: %w", err)
	}
	return nil
}

// SetUserLanguage sets the language the person reads Taasky in: a tag the
// door checked against the languages it has words for; "" goes back to
// the identity provider's locale or the browser's.
func (a *Accounts) SetUserLanguage(ctx context.Context, userID int64, lang string) error {
	lang = strings.TrimSpace(lang)
	if lang != "" && !languageTag.MatchString(lang) {
		return refuse(ErrInvalid, "error.language", "language: must be a language tag like de or fr (got %q)", lang)
	}
	if err := updateUserLanguage(ctx, a.pool, userID, lang); err != nil {
		return fmt.Errorf("set language: %w", notFound(err, "", "no user %d", userID))
	}
	return nil
}

func (a *Accounts) loginOIDC(ctx context.Context, id OIDCIdentity) (User, error) {
	u, err := selectUserByOIDC(ctx, a.pool, id.Issuer, id.Subject)
	if err == nil {
		if moved, ok := a.movedEmail(u, id); ok {
			return a.followEmail(ctx, u, moved)
		}
	}
	if err == nil && u.EmailVerified != id.EmailVerified {
		return updateEmailVerified(ctx, a.pool, u.ID, id.EmailVerified) // a returning user, whose issuer changed its word
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return u, err // a returning user, or a failure
	}
	if id.Email == "" {
		return User{}, refuse(ErrUnauthorized, "error.no_email", "your identity provider did not give Taasky your email address")
	}
	email, err := normalizeEmail("email", id.Email)
	if err != nil {
		return User{}, err
	}
	if !id.EmailVerified {
		return User{}, refuse(ErrUnauthorized, "error.email_unverified", "your identity provider has not verified your email address %s", email)
	}
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		u, err = selectUserByEmail(ctx, tx, email, true)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			u, err = insertUserOIDC(ctx, tx, email, id.Issuer, id.Subject)
			return err
		case err != nil:
			return err
		case u.OIDCIssuer != "" && !a.dev.takesOver(u, id):
			// What to do when the other login is the person's own former one
			// (their provider account re-created, or OIDC_ISSUER changed):
			// ReleaseSignInAsOperator.
			return refuse(ErrConflict, "relink18_error.email_linked", "the email address %s is already linked to another login. "+
				"If your account at your sign-in provider was re-created, or this service changed its provider, "+
				"ask this service's operator to relink your sign-in to your address; then sign in again.", email)
		}
		u.OIDCIssuer, u.OIDCSubject = id.Issuer, id.Subject
		return updateUserOIDC(ctx, tx, u.ID, id.Issuer, id.Subject)
	})
	return u, err
}

// movedEmail is the address a returning user's issuer now gives them when
// it differs from the one Taasky holds and the issuer verified it: the
// person changed it at their provider, and the old one may be someone
// else's by now (mails must stop going there; an invitation to the new
// one must be theirs to accept).
func (a *Accounts) movedEmail(u User, id OIDCIdentity) (string, bool) {
	if !id.EmailVerified || id.Email == "" {
		return "", false
	}
	email, err := normalizeEmail("email", id.Email)
	return email, err == nil && email != u.Email
}

// followEmail gives u the address email, verified, unless another user
// holds it (a person made owner or member by that address who never
// signed in, or another login): then u keeps the address they had, and
// signs in all the same, since the two cannot be told to be one person
// (merging them is left to a decision).
func (a *Accounts) followEmail(ctx context.Context, u User, email string) (User, error) {
	moved, err := updateUserEmailIfFree(ctx, a.pool, u.ID, email)
	switch {
	case errors.Is(err, pgx.ErrNoRows) || isUniqueViolation(err, "users_email_key"):
		return u, nil // the issuer vouched for the other address, not this one: nothing changes
	case err != nil:
		return User{}, err
	}
	return moved, nil
}

// devIssuer is taasky dev's embedded OpenID Connect provider, whose URL
// follows BASE_URL ({BASE_URL}{path}): taasky dev run again on the same
// database with another LISTEN_ADDR or BASE_URL has another issuer, and
// the (issuer, subject) every user was linked to no longer comes back.
type devIssuer struct {
	issuer, path string
}

// UseDevIssuer tells a login from issuer, taasky dev's embedded provider
// served at path under BASE_URL, that it may take over an identity
// another embedded provider of taasky dev linked (an earlier BASE_URL).
// Only taasky dev calls it: serve never does, whatever its issuer.
func (a *Accounts) UseDevIssuer(issuer, path string) {
	a.dev = devIssuer{issuer: issuer, path: path}
}

// takesOver says whether the login id may relink u, whose identity is
// linked elsewhere: only when id comes from the embedded issuer and u's
// was an embedded issuer too (an http(s) URL whose path is the embedded
// issuer's, nothing after it) with the same subject: the embedded
// provider's subject is a function of the email it signed in, so the same
// subject is the same person by construction, and an identity of any real
// provider (another subject) is never taken over.
func (d devIssuer) takesOver(u User, id OIDCIdentity) bool {
	if d.issuer == "" || id.Issuer != d.issuer || u.OIDCIssuer == id.Issuer || u.OIDCSubject != id.Subject {
		return false
	}
	was, err := url.Parse(u.OIDCIssuer)
	return err == nil && (was.Scheme == "http" || was.Scheme == "https") && was.Host != "" && was.User == nil &&
		was.Path == d.path && was.RawQuery == "" && was.Fragment == ""
}

// SetUserTimeZone sets the IANA time zone (e.g. "Europe/Paris") that the
// user's cards and messages are shown in.
func (a *Accounts) SetUserTimeZone(ctx context.Context, userID int64, zone string) error {
	zone = strings.TrimSpace(zone)
	if _, err := tz.Load(zone); err != nil {
		return refuse(ErrInvalid, "error.time_zone", "time zone: must be an IANA time zone name like Europe/Paris (got %q)", zone)
	}
	if err := updateUserTimeZone(ctx, a.pool, userID, zone); err != nil {
		return fmt.Errorf("set time zone: %w", notFound(err, "", "no user %d", userID))
	}
	return nil
}
