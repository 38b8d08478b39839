package oauthserver

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestGrantHasAnAbsoluteLifetime: a grant lasts at most GrantMaxAge from
// the person's consent, however often its refresh token rotates. A
// rotation keeps the grant's start; a refresh inside the limit works, one
// past it is invalid_grant, says so, and changes nothing (the same
// refresh token, back inside the limit, still works: it was not spent).
// The clock is the server's, moved, and the session's stored times.
func TestGrantHasAnAbsoluteLifetime(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "tsc_long")
	ctx, pool, token := e.ctx, e.pool, e.token
	const maxAge = 90 * 24 * time.Hour
	if e.s.grantMax != maxAge {
		t.Fatalf("the default grant lifetime is %v, want 90 days", e.s.grantMax)
	}
	consent := time.Now()
	e.s.now = func() time.Time { return consent }
	code, verifier := approveCode(t, e, "tsc_long")
	status, tok := token(url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"http://127.0.0.1:9999/cb"}, "code_verifier": {verifier}})
	if status != 200 {
		t.Fatalf("exchange: %d %v", status, tok)
	}
	grantedAt := func() string {
		t.Helper()
		var at string
		if err := pool.QueryRow(ctx, `SELECT coalesce(request->'session'->>'granted_at', '') FROM oauth_tokens WHERE kind = 'refresh' AND active`).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	start := grantedAt()
	if start == "" {
		t.Fatal("the grant's refresh token does not keep when the grant was made")
	}
	refresh := func(rt string, at time.Duration) (int, map[string]any) {
		t.Helper()
		e.s.now = func() time.Time { return consent.Add(at) }
		return token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
	}

	// Day 10: rotated, and the new refresh token keeps the start.
	status, tok = refresh(tok["refresh_token"].(string), 10*24*time.Hour)
	if status != 200 {
		t.Fatalf("a refresh 10 days into the grant: %d %v", status, tok)
	}
	if got := grantedAt(); got != start {
		t.Errorf("the rotated refresh token's grant began at %s, want the consent's %s", got, start)
	}
	if exp, _ := tok["expires_in"].(float64); exp <= 0 || exp > 600 {
		t.Errorf("the access token's expires_in inside the grant: %v, want its 10 minutes", tok["expires_in"])
	}

	// One second past 90 days: refused, and nothing rotated.
	rt := tok["refresh_token"].(string)
	var before int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM oauth_tokens`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	status, m := refresh(rt, maxAge+time.Second)
	desc, _ := m["error_description"].(string)
	if status != 400 || m["error"] != "invalid_grant" || !strings.Contains(desc, "90 days") || !strings.Contains(desc, "authoriz") {
		t.Errorf("a refresh past 90 days: %d %v, want 400 invalid_grant saying the grant lasts 90 days and to authorize again", status, m)
	}
	var after, active int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE kind = 'refresh' AND active) FROM oauth_tokens`).Scan(&after, &active); err != nil {
		t.Fatal(err)
	}
	if after != before || active != 1 {
		t.Errorf("the refused refresh changed the tokens: %d rows then %d, %d active refresh tokens", before, after, active)
	}
	// Just inside the limit the same token still works: it was not spent.
	if status, m := refresh(rt, maxAge-time.Minute); status != 200 {
		t.Errorf("a refresh a minute before the grant ends, after a refused one: %d %v", status, m)
	}
}

// TestGrantEndPastTheTokensExpiry: once the grant's end is also the
// refresh token's stored expiry, fosite refuses the expired token first;
// the client is still told that the grant ended and to authorize again.
// A grant stored before grants had a start counts from its latest token.
func TestGrantEndPastTheTokensExpiry(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "tsc_old")
	ctx, pool, token := e.ctx, e.pool, e.token
	code, verifier := approveCode(t, e, "tsc_old")
	status, tok := token(url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"http://127.0.0.1:9999/cb"}, "code_verifier": {verifier}})
	if status != 200 {
		t.Fatalf("exchange: %d %v", status, tok)
	}
	// Five minutes before the grant ends: the tokens issued expire with it.
	end := time.Now().Add(5 * time.Minute).UTC().Truncate(time.Second)
	if _, err := pool.Exec(ctx, `UPDATE oauth_tokens SET request = jsonb_set(request, '{session,granted_at}', to_jsonb($1::text)) WHERE kind = 'refresh'`,
		end.Add(-90*24*time.Hour).Format(time.RFC3339)); err != nil {
		t.Fatal(err)
	}
	status, tok = token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	if status != 200 {
		t.Fatalf("a refresh 5 minutes before the grant ends: %d %v", status, tok)
	}
	if exp, _ := tok["expires_in"].(float64); exp <= 0 || exp > 300 {
		t.Errorf("an access token issued 5 minutes before the grant ends: expires_in %v, want at most 300", tok["expires_in"])
	}
	var latest time.Time
	if err := pool.QueryRow(ctx, `SELECT max(expires_at) FROM oauth_tokens WHERE kind IN ('access', 'refresh') AND active`).Scan(&latest); err != nil {
		t.Fatal(err)
	}
	if latest.After(end) {
		t.Errorf("a token issued 5 minutes before the grant ends expires at %v, after the grant's end %v", latest, end)
	}

	// The grant began 91 days ago, and its refresh token expired with it.
	ago := time.Now().Add(-91 * 24 * time.Hour).UTC().Format(time.RFC3339)
	ended := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	if _, err := pool.Exec(ctx, `UPDATE oauth_tokens SET request = jsonb_set(jsonb_set(request, '{session,granted_at}', to_jsonb($1::text)),
		'{session,expires_at,refresh_token}', to_jsonb($2::text)) WHERE kind = 'refresh' AND active`, ago, ended); err != nil {
		t.Fatal(err)
	}
	status, m := token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	desc, _ := m["error_description"].(string)
	if status != 400 || m["error"] != "invalid_grant" || !strings.Contains(desc, "90 days") {
		t.Errorf("a refresh token expired with its grant: %d %v, want invalid_grant saying the grant lasts 90 days", status, m)
	}

	// A session stored without granted_at (before this rule): its grant
	// counts from the token's own request.
	if _, err := pool.Exec(ctx, `UPDATE oauth_tokens SET request = jsonb_set(jsonb_set(request #- '{session,granted_at}', '{requested_at}', to_jsonb($1::text)),
		'{session,expires_at,refresh_token}', to_jsonb($2::text)) WHERE kind = 'refresh' AND active`, ago, time.Now().Add(time.Hour).UTC().Format(time.RFC3339)); err != nil {
		t.Fatal(err)
	}
	status, m = token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	desc, _ = m["error_description"].(string)
	if status != 400 || m["error"] != "invalid_grant" || !strings.Contains(desc, "90 days") {
		t.Errorf("a grant stored without its start, its token issued 91 days ago: %d %v, want invalid_grant", status, m)
	}
}
