package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

type bundle struct {
	ctx      context.Context
	pool     *pgxpool.Pool
	accounts *app.Accounts
}

func setup(t *testing.T) bundle {
	t.Helper()
	t.Parallel()
	pool := pgtest.New(t)
	return bundle{ctx: t.Context(), pool: pool, accounts: app.NewAccounts(pool)}
}

// rows counts the rows of each table, to check that a refused call changed nothing.
func (b bundle) rows(t *testing.T) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, table := range []string{"accounts", "users", "memberships", "agents", "agent_keys"} {
		var n int
		if err := b.pool.QueryRow(b.ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		counts[table] = n
	}
	return counts
}

// wantError checks err's code and that its message starts with msg.
func wantError(t *testing.T, err error, code app.ErrorCode, msg string) {
	t.Helper()
	if got := app.ErrorCodeOf(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
	if got := app.ErrorMessageOf(err); !strings.HasPrefix(got, msg) {
		t.Fatalf("error message %q, want it to start with %q", got, msg)
	}
}

func TestCreateAccount(t *testing.T) {
	b := setup(t)
	acct, err := b.accounts.CreateAccount(b.ctx, "acme", "  Acme Inc. ", "Alice@Example.TEST")
	if err != nil {
		t.Fatal(err)
	}
	if acct.ID == 0 || acct.Slug != "acme" || acct.Name != "Acme Inc." || acct.CreatedAt.IsZero() {
		t.Errorf("account = %+v", acct)
	}
	alice, err := b.accounts.UserByEmail(b.ctx, "alice@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if alice.Email != "alice@example.test" || alice.OIDCIssuer != "" || alice.TimeZone != "UTC" {
		t.Errorf("user = %+v", alice)
	}
	// The same owner for a second account: the user is reused.
	if _, err := b.accounts.CreateAccount(b.ctx, "acme-2", "Acme Two", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	ms, err := b.accounts.Memberships(b.ctx, alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].AccountSlug != "acme" || ms[0].Role != app.MemberRoleOwner || ms[1].AccountSlug != "acme-2" || ms[0].Operator {
		t.Errorf("memberships = %+v", ms)
	}
	// Its audit log starts with it, by the operator, naming the owner, as
	// a sign-up's does (it started empty: an owner nobody had made).
	entries, _, err := b.accounts.AuditLog(b.ctx, alice.ID, "acme", "")
	if err != nil || len(entries) != 1 || entries[0].Action != app.AuditAccountCreated || entries[0].Actor != "operator" ||
		entries[0].Detail["owner"] != "alice@example.test" || entries[0].Detail["slug"] != "acme" || entries[0].Detail["name"] != "Acme Inc." {
		t.Errorf("the audit log: %+v %v", entries, err)
	}
	got, err := b.accounts.AccountBySlug(b.ctx, "acme")
	if err != nil || got.ID != acct.ID || got.Name != "Acme Inc." {
		t.Errorf("AccountBySlug = %+v, %v", got, err)
	}
	_, err = b.accounts.AccountBySlug(b.ctx, "nope")
	wantError(t, err, app.ErrNotFound, "account not found: nope")
}

func TestCreateAccountRefusals(t *testing.T) {
	b := setup(t)
	if _, err := b.accounts.CreateAccount(b.ctx, "taken", "Taken", "owner@example.test"); err != nil {
		t.Fatal(err)
	}
	before := b.rows(t)
	slugRule := "slug: must be 3–40 characters of a–z, 0–9 and '-', starting and ending with a letter or digit"
	tests := []struct {
		name, slug, acctName, email string
		code                        app.ErrorCode
		msg                         string
	}{
		{"slug taken", "taken", "Other", "new@example.test", app.ErrConflict, "account slug already taken: taken"},
		{"slug short", "ab", "X", "new@example.test", app.ErrInvalid, slugRule + ` (got "ab")`},
		{"slug long", strings.Repeat("a", 41), "X", "new@example.test", app.ErrInvalid, slugRule},
		{"slug upper", "Acme", "X", "new@example.test", app.ErrInvalid, slugRule},
		{"slug leading dash", "-acme", "X", "new@example.test", app.ErrInvalid, slugRule},
		{"slug trailing dash", "acme-", "X", "new@example.test", app.ErrInvalid, slugRule},
		{"slug underscore", "ac_me", "X", "new@example.test", app.ErrInvalid, slugRule},
		{"name empty", "new-one", "   ", "new@example.test", app.ErrInvalid, "name: must be 1–80 characters, without control characters (got 0)"},
		{"name long", "new-one", strings.Repeat("é", 81), "new@example.test", app.ErrInvalid, "name: must be 1–80 characters, without control characters (got 81)"},
		{"name control", "new-one", "a\x00b", "new@example.test", app.ErrInvalid, "name: must be 1–80 characters, without control characters"},
		{"name reversed", "new-one", "\u202eknaB emcA", "new@example.test", app.ErrInvalid, "name: readable text only, without invisible or direction-changing characters or words that mix alphabets"},
		{"name invisible", "new-one", "\u200b", "new@example.test", app.ErrInvalid, "name: readable text only"},
		{"name byte order mark", "new-one", "\ufeff", "new@example.test", app.ErrInvalid, "name: readable text only"},
		{"name mixed scripts", "new-one", "P\u0430yPal", "new@example.test", app.ErrInvalid, "name: readable text only"},
		{"email bare word", "new-one", "New", "alice", app.ErrInvalid, `owner email: must be an email address like name@example.com (got "alice")`},
		{"email display name", "new-one", "New", "Alice <alice@example.test>", app.ErrInvalid, "owner email: must be an email address"},
		{"email two", "new-one", "New", "a@example.test, b@example.test", app.ErrInvalid, "owner email: must be an email address"},
		{"email empty", "new-one", "New", "", app.ErrInvalid, "owner email: must be an email address"},
	}
	for _, tt := range tests {
		_, err := b.accounts.CreateAccount(b.ctx, tt.slug, tt.acctName, tt.email)
		t.Run(tt.name, func(t *testing.T) { wantError(t, err, tt.code, tt.msg) })
	}
	if after := b.rows(t); !equalCounts(before, after) {
		t.Errorf("refused calls changed the database: %v → %v", before, after)
	}
}

func equalCounts(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

func TestLoginOIDC(t *testing.T) {
	b := setup(t)
	const iss = "https://id.example.test"
	if _, err := b.accounts.CreateAccount(b.ctx, "acme", "Acme", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	pre, err := b.accounts.UserByEmail(b.ctx, "alice@example.test")
	if err != nil {
		t.Fatal(err)
	}

	// Unverified email: refused, nothing linked.
	_, err = b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: "a1", Email: "alice@example.test"})
	wantError(t, err, app.ErrUnauthorized, "your identity provider has not verified your email address alice@example.test")
	_, err = b.accounts.UserByOIDC(b.ctx, iss, "a1")
	wantError(t, err, app.ErrNotFound, "no user for this login")

	// First login links the pre-created user: Alice joins her account.
	u, err := b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: "a1", Email: "ALICE@example.test", EmailVerified: true})
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != pre.ID || u.OIDCIssuer != iss || u.OIDCSubject != "a1" {
		t.Errorf("first login = %+v, want user %d linked", u, pre.ID)
	}
	ms, err := b.accounts.Memberships(b.ctx, u.ID)
	if err != nil || len(ms) != 1 || ms[0].AccountSlug != "acme" || ms[0].Role != app.MemberRoleOwner {
		t.Errorf("memberships after first login = %+v, %v", ms, err)
	}

	// Later logins go by (issuer, subject), whatever the email now is.
	again, err := b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: "a1", Email: "alice@new.example.test"})
	if err != nil || again.ID != pre.ID {
		t.Errorf("second login = %+v, %v; want user %d", again, err, pre.ID)
	}
	// An address the issuer did not verify is not followed.
	if again.Email != "alice@example.test" {
		t.Errorf("second login with an unverified address: email %q", again.Email)
	}

	// Another identity claiming the linked email is refused.
	_, err = b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: "mallory", Email: "alice@example.test", EmailVerified: true})
	wantError(t, err, app.ErrConflict, "the email address alice@example.test is already linked to another login. "+relinkAdvice)

	// A stranger gets a user of their own, in no account.
	bob, err := b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: "b1", Email: "bob@example.test", EmailVerified: true})
	if err != nil || bob.ID == pre.ID || bob.Email != "bob@example.test" {
		t.Fatalf("new user = %+v, %v", bob, err)
	}
	if ms, err := b.accounts.Memberships(b.ctx, bob.ID); err != nil || len(ms) != 0 {
		t.Errorf("new user's memberships = %+v, %v", ms, err)
	}
	_, err = b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: "c1", EmailVerified: true})
	wantError(t, err, app.ErrUnauthorized, "your identity provider did not give Taasky your email address")
}

// TestLoginDevIssuerMoved: taasky dev's embedded issuer follows BASE_URL,
// so after another port on the same database its logins come from another
// issuer. With UseDevIssuer, such a login takes over the identity an
// earlier embedded issuer linked (same subject: the embedded provider's is
// a function of the email); an identity of any other provider, another
// subject, an issuer not shaped like the embedded one, or a process that
// did not call UseDevIssuer (serve) is refused as before.
func TestLoginDevIssuerMoved(t *testing.T) {
	b := setup(t)
	const (
		oldDev = "http://127.0.0.1:8080/dev-oidc"
		newDev = "http://127.0.0.1:9090/dev-oidc"
		sub    = "dev-0123456789abcdef01234567"
	)
	login := func(a *app.Accounts, iss, sub, email string) (app.User, error) {
		return a.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: sub, Email: email, EmailVerified: true})
	}
	linked := func(email, iss, sub string) app.User {
		t.Helper()
		u, err := login(b.accounts, iss, sub, email)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	alice := linked("alice@example.test", oldDev, sub)
	// Each other person signs in from the new embedded issuer with the
	// subject it gives them (signIn); what they were linked to must stay.
	type other struct {
		user   app.User
		signIn string
	}
	others := []other{
		{linked("carol@example.test", "https://accounts.google.example", "dev-carol"), "dev-carol"}, // a real provider, even with that subject
		{linked("dave@example.test", "https://idp.example/dev-oidc/x", "dev-dave"), "dev-dave"},     // not the embedded issuer's path
		{linked("erin@example.test", "http://127.0.0.1:8080/dev-oidc?x=1", "dev-erin"), "dev-erin"}, // nor with a query
		{linked("frank@example.test", oldDev, "dev-another"), "dev-frank"},                          // another subject: another person
	}

	// Without UseDevIssuer (taasky serve), nothing is relinked.
	_, err := login(b.accounts, newDev, sub, "alice@example.test")
	wantError(t, err, app.ErrConflict, "the email address alice@example.test is already linked to another login. "+relinkAdvice)

	dev := app.NewAccounts(b.pool)
	dev.UseDevIssuer(newDev, "/dev-oidc")
	u, err := login(dev, newDev, sub, "alice@example.test")
	if err != nil || u.ID != alice.ID || u.OIDCIssuer != newDev || u.OIDCSubject != sub {
		t.Fatalf("alice after the move = %+v, %v; want user %d linked to %s", u, err, alice.ID, newDev)
	}
	if again, err := login(dev, newDev, sub, "alice@example.test"); err != nil || again.ID != alice.ID {
		t.Errorf("alice again = %+v, %v", again, err)
	}
	for _, o := range others {
		_, err := login(dev, newDev, o.signIn, o.user.Email)
		wantError(t, err, app.ErrConflict, "the email address "+o.user.Email+" is already linked to another login. "+relinkAdvice)
		if u, err := b.accounts.UserByEmail(b.ctx, o.user.Email); err != nil || u.OIDCIssuer != o.user.OIDCIssuer || u.OIDCSubject != o.user.OIDCSubject {
			t.Errorf("%s relinked: %+v, %v", o.user.Email, u, err)
		}
	}
	// A login from another issuer than the embedded one takes nothing over.
	_, err = login(dev, "http://127.0.0.1:7070/dev-oidc", sub, "alice@example.test")
	wantError(t, err, app.ErrConflict, "the email address alice@example.test is already linked to another login. "+relinkAdvice)
}

// relinkAdvice is what the refusal of a login whose address is another
// login's tells the person to do.
const relinkAdvice = "If your account at your sign-in provider was re-created, or this service changed its provider, " +
	"ask this service's operator to relink your sign-in to your address; then sign in again."

// TestReleaseSignIn: after an operator releases a user's sign-in, the
// next login whose issuer verified the address (another subject, another
// issuer) becomes that user, with their account and role; the old login
// and an unverified claim of the address never do; their sessions end;
// each of their accounts' audit logs says so. A user who never signed in,
// an unknown or malformed address have nothing to release and change
// nothing.
func TestReleaseSignIn(t *testing.T) {
	b := setup(t)
	const oldIss, newIss = "https://old-idp.example", "https://new-idp.example"
	for _, slug := range []string{"acme", "beta"} {
		if _, err := b.accounts.CreateAccount(b.ctx, slug, "Acme", "alice@example.test"); err != nil {
			t.Fatal(err)
		}
	}
	login := func(iss, sub string, verified bool) (app.User, error) {
		return b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: sub, Email: "alice@example.test", EmailVerified: verified})
	}
	alice, err := login(oldIss, "a-old", true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = login(newIss, "a-new", true)
	wantError(t, err, app.ErrConflict, "the email address alice@example.test is already linked to another login. "+relinkAdvice)

	aliceSession, _, err := b.accounts.StartSession(b.ctx, alice.ID, app.SessionDevice{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.accounts.ReleaseSignInAsOperator(b.ctx, " Alice@Example.test ")
	if err != nil || r.Email != "alice@example.test" || r.Issuer != oldIss || r.Subject != "a-old" || strings.Join(r.Accounts, ",") != "acme,beta" {
		t.Fatalf("release: %+v %v", r, err)
	}
	released, err := b.accounts.UserByID(b.ctx, alice.ID)
	if err != nil || released.OIDCIssuer != "" {
		t.Errorf("alice released: %+v %v", released, err)
	}
	if _, err := b.accounts.SessionUser(b.ctx, aliceSession); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Errorf("alice's session after the release: %v, want it ended", err)
	}
	_, err = b.accounts.ReleaseSignInAsOperator(b.ctx, "alice@example.test")
	wantError(t, err, app.ErrConflict, "email: alice@example.test has no sign-in to relink (they never signed in, or it was released already and waits for their next sign-in)")
	_, err = login(newIss, "a-new", false)
	wantError(t, err, app.ErrUnauthorized, "your identity provider has not verified your email address alice@example.test")

	u, err := login(newIss, "a-new", true)
	if err != nil || u.ID != alice.ID || u.OIDCIssuer != newIss || u.OIDCSubject != "a-new" {
		t.Fatalf("the new login = %+v, %v; want user %d", u, err, alice.ID)
	}
	if ms, err := b.accounts.Memberships(b.ctx, u.ID); err != nil || len(ms) != 2 || ms[0].Role != app.MemberRoleOwner {
		t.Errorf("alice's memberships after the new login: %+v %v", ms, err)
	}
	_, err = login(oldIss, "a-old", true)
	wantError(t, err, app.ErrConflict, "the email address alice@example.test is already linked to another login. "+relinkAdvice)
	for _, slug := range []string{"acme", "beta"} {
		entries, _, err := b.accounts.AuditLogAsOperator(b.ctx, slug, "")
		if err != nil || len(entries) == 0 || entries[0].Action != app.AuditSignInReleased || entries[0].Actor != app.AuditOperator ||
			entries[0].Detail["email"] != "alice@example.test" || entries[0].Detail["from"] != oldIss {
			t.Errorf("%s's audit log: %+v %v", slug, entries, err)
		}
	}

	// Bob was made an owner by his address and never signed in.
	if _, err := b.accounts.CreateAccount(b.ctx, "bobs", "Bob's", "bob@example.test"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		email string
		code  app.ErrorCode
		msg   string
	}{
		{"bob@example.test", app.ErrConflict, "email: bob@example.test has no sign-in to relink (they never signed in, or it was released already and waits for their next sign-in)"},
		{"nobody@example.test", app.ErrNotFound, "email: no user has the address nobody@example.test"},
		{"alice", app.ErrInvalid, `email: must be an email address like name@example.com (got "alice")`},
	} {
		_, err := b.accounts.ReleaseSignInAsOperator(b.ctx, c.email)
		wantError(t, err, c.code, c.msg)
	}
	if entries, _, err := b.accounts.AuditLogAsOperator(b.ctx, "bobs", ""); err != nil || len(entries) != 1 {
		t.Errorf("bobs's audit log: %+v %v", entries, err)
	}
}

func TestSetUserTimeZone(t *testing.T) {
	b := setup(t)
	if _, err := b.accounts.CreateAccount(b.ctx, "acme", "Acme", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	u, err := b.accounts.UserByEmail(b.ctx, "alice@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.SetUserTimeZone(b.ctx, u.ID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	if u, _ = b.accounts.UserByEmail(b.ctx, "alice@example.test"); u.TimeZone != "Europe/Paris" {
		t.Errorf("time zone = %q", u.TimeZone)
	}
	wantError(t, b.accounts.SetUserTimeZone(b.ctx, u.ID, "Mars/Olympus"), app.ErrInvalid, `time zone: must be an IANA time zone name like Europe/Paris (got "Mars/Olympus")`)
	wantError(t, b.accounts.SetUserTimeZone(b.ctx, u.ID, "localtime"), app.ErrInvalid, `time zone: must be an IANA time zone name like Europe/Paris (got "localtime")`) // the server's own zone, a file of tzdata
	wantError(t, b.accounts.SetUserTimeZone(b.ctx, u.ID+1000, "UTC"), app.ErrNotFound, "no user")
}

// TestLoginKeepsTheDisplayName: the issuer's name claim is kept (a receipt
// names the human by it), updated when it changes, and one that is not a
// line of text is left out.
func TestLoginKeepsTheDisplayName(t *testing.T) {
	b := setup(t)
	name := func() *string {
		t.Helper()
		var n *string
		if err := b.pool.QueryRow(b.ctx, `SELECT display_name FROM users WHERE email = 'ada@example.test'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct{ claim, want string }{
		{"Ada Lovelace", "Ada Lovelace"}, {"  Ada King ", "Ada King"}, {"Ada\nKing", "Ada King"}, {"", "Ada King"},
	} {
		if _, err := b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: "https://issuer.example", Subject: "ada",
			Email: "ada@example.test", EmailVerified: true, Name: c.claim}); err != nil {
			t.Fatal(err)
		}
		if got := name(); got == nil || *got != c.want {
			t.Errorf("claim %q: display name %v, want %q", c.claim, got, c.want)
		}
	}
}

// TestLanguageAndClaims: a person's language is theirs to set (a tag, or
// "" to follow their provider and browser); the sign-in keeps the
// provider's locale claim, and its zoneinfo claim while the person's zone
// is still the default UTC; a claim that is no tag or no zone is ignored.
func TestLanguageAndClaims(t *testing.T) {
	b := setup(t)
	const iss = "https://id.example.test"
	u, err := b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: "l1", Email: "lea@example.test", EmailVerified: true,
		Locale: "de-AT", ZoneInfo: "Europe/Vienna"})
	if err != nil {
		t.Fatal(err)
	}
	if u.OIDCLocale != "de-AT" || u.TimeZone != "Europe/Vienna" || u.Language != "" {
		t.Fatalf("claims kept: %+v", u)
	}
	if err := b.accounts.SetUserTimeZone(b.ctx, u.ID, "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	u, err = b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: iss, Subject: "l1", Email: "lea@example.test", EmailVerified: true,
		Locale: "<script>", ZoneInfo: "Europe/Paris"})
	if err != nil || u.OIDCLocale != "" || u.TimeZone != "Asia/Tokyo" {
		t.Fatalf("a chosen zone is the person's, a bad locale ignored: %v %+v", err, u)
	}
	if err := b.accounts.SetUserLanguage(b.ctx, u.ID, "fr"); err != nil {
		t.Fatal(err)
	}
	wantError(t, b.accounts.SetUserLanguage(b.ctx, u.ID, "not a language"), app.ErrInvalid, `language: must be a language tag like de or fr (got "not a language")`)
	if u, _ = b.accounts.UserByID(b.ctx, u.ID); u.Language != "fr" {
		t.Fatalf("a refused language changed the setting: %q", u.Language)
	}
	if err := b.accounts.SetUserLanguage(b.ctx, u.ID, ""); err != nil {
		t.Fatal(err)
	}
	if u, _ = b.accounts.UserByID(b.ctx, u.ID); u.Language != "" {
		t.Fatalf("cleared: %q", u.Language)
	}
}
