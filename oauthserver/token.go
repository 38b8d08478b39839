package oauthserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ory/fosite"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/ratelimit"
)

// codeLifespan is how long an authorization code may be exchanged;
// refreshLifespan how long a refresh token lives unused (a grant, however
// often it rotates, lasts at most Config.GrantMaxAge).
const (
	codeLifespan    = 5 * time.Minute
	refreshLifespan = 30 * 24 * time.Hour
)

// errInvalidTarget is RFC 8707's refusal of a resource the grant is not for.
var errInvalidTarget = &fosite.RFC6749Error{ErrorField: "invalid_target", CodeField: http.StatusBadRequest,
	DescriptionField: "The requested resource is invalid, unknown, or not the one this grant is for."}

// token is the token endpoint: a code (with its PKCE verifier) or a
// refresh token for an access token and a new refresh token. A reused
// code or refresh token revokes the grant (fosite).
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	cors(w)
	if s.notAForm(w, r, "token") {
		return
	}
	ctx := r.Context()
	// The stored grant's session is read into sess (store.load), even
	// when fosite then refuses its expired token.
	sess := &Session{}
	ar, err := s.provider.NewAccessRequest(ctx, r, sess)
	if unavailable(err) {
		s.retryLater(w, r, "token", err)
		return
	}
	if s.failed(w, r, "token", err) {
		return
	}
	if err != nil {
		switch g := r.PostForm.Get("grant_type"); {
		case g != "" && g != "authorization_code" && g != "refresh_token":
			// fosite answers a grant no handler takes with invalid_request
			// (and a hint about redirect URIs); RFC 6749 §5.2 has a code.
			err = fosite.ErrUnsupportedGrantType.WithHintf("grant_type: Taasky issues tokens for authorization_code and refresh_token (got %q).", g)
		case errors.Is(err, fosite.ErrTokenExpired) && g == "authorization_code":
			// fosite's description would be its generic "invalid,
			// expired, revoked, …" one.
			err = fosite.ErrInvalidGrant.WithHintf("code: the authorization code expired (a code lives %d minutes); start the authorization again.", int(codeLifespan/time.Minute))
		case errors.Is(err, fosite.ErrInvalidGrant) && g == "authorization_code" && r.PostForm.Get("code") == "":
			// fosite looks the empty code up and calls it invalid, expired
			// or revoked; RFC 6749 §5.2: a missing parameter.
			err = fosite.ErrInvalidRequest.WithHint("code: required: the authorization code your redirect URI received.")
		case errors.Is(err, fosite.ErrInvalidGrant) && g == "refresh_token" && r.PostForm.Get("refresh_token") == "":
			err = fosite.ErrInvalidRequest.WithHint("refresh_token: required: the refresh token of your last token response.")
		case errors.Is(err, fosite.ErrTokenExpired) && g == "refresh_token":
			// A refresh token expires with its grant (bounded below).
			if !sess.GrantedAt.IsZero() && !s.now().Before(s.grantEnd(sess)) {
				err = s.grantEnded(sess)
			} else {
				err = fosite.ErrInvalidGrant.WithHintf("refresh_token: the refresh token expired (one lives %d days unless used); start the authorization again.", int(refreshLifespan/(24*time.Hour)))
			}
		}
		s.logRefusal(r.Context(), "token", err)
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	if err := s.boundByGrant(ar); err != nil {
		// Refused before NewAccessResponse: nothing is rotated or issued.
		s.logRefusal(r.Context(), "token", err)
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	// RFC 8707 §2.2: a resource named here must be the one granted; the
	// code stays usable (nothing is spent before NewAccessResponse).
	// The refresh's request carries the granted audience twice (granted
	// and requested): each is named once.
	granted := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(ar.GetGrantedAudience()), ar.GetRequestedAudience()...))))
	for _, res := range ar.GetRequestForm()["resource"] {
		if !slices.Contains(granted, res) {
			err := errInvalidTarget.WithHintf("resource: this grant is for %s, not %s.", strings.Join(granted, " "), res)
			s.provider.WriteAccessError(ctx, w, ar, err)
			return
		}
	}
	if ar.GetGrantTypes().ExactOne("refresh_token") {
		// By grant, once nothing else refuses the request: a refresh token
		// names its grant, and fosite keeps the grant's request ID through
		// every rotation. Refused before NewAccessResponse, the token
		// stays the client's to use later;
		// on too_many_requests the TypeScript SDK's client neither retries
		// at once nor throws the grant away (its auth.js).
		if ok, wait := s.refresh.Take(ar.GetID()); !ok {
			client := ar.GetClient().GetID()
			s.refused.Refused("oauth_token", "too_many_requests", client, slog.LevelWarn, "oauth token refused: a grant refreshed too often",
				"component", "oauth", "client_id", client)
			after := strconv.Itoa(ratelimit.RetryAfter(wait))
			w.Header().Set("Retry-After", after)
			writeJSONError(w, http.StatusTooManyRequests, "too_many_requests", "refresh_token: this grant was refreshed too often (at most "+
				s.refreshesAllowed()+"); the refresh token is still valid: retry after "+after+" s")
			return
		}
	}
	resp, err := s.provider.NewAccessResponse(ctx, ar)
	if errors.Is(err, fosite.ErrInvalidatedAuthorizeCode) || errors.Is(err, fosite.ErrSerializationFailure) {
		// Another exchange of the same code, or refresh with the same
		// token, won the moment (its transaction is committed): this one is
		// a reuse. Read again, the request meets fosite's reuse handling,
		// which revokes what the winner got and answers invalid_grant.
		if _, again := s.provider.NewAccessRequest(ctx, r, &Session{}); again != nil {
			err = again
		} else {
			// Still usable, yet not spent: its agent was disconnected.
			err = fosite.ErrInvalidGrant.WithHint("The grant has ended: its agent was disconnected.")
		}
	}
	if unavailable(err) {
		s.retryLater(w, r, "token", err)
		return
	}
	if err != nil {
		s.logRefusal(r.Context(), "token", err)
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	s.provider.WriteAccessResponse(ctx, w, ar, resp)
}

// refreshesAllowed says the refresh limit in words: "10 at once, then 1 every 300 s".
func (s *Server) refreshesAllowed() string {
	l := s.refresh.Limit()
	return fmt.Sprintf("%d at once, then 1 every %.0f s", l.Burst, 1/l.Rate)
}

// grantEnd is when the grant of sess ends: GrantMaxAge after the
// person's consent.
func (s *Server) grantEnd(sess *Session) time.Time { return sess.GrantedAt.Add(s.grantMax) }

// grantEnded is the refusal of a refresh past the grant's end.
func (s *Server) grantEnded(sess *Session) error {
	return fosite.ErrInvalidGrant.WithHintf("refresh_token: this grant ended on %s (a grant lasts %d days from the person's consent, however often it is refreshed); start the authorization again, for the person to consent again.",
		s.grantEnd(sess).UTC().Format(time.RFC3339), int(s.grantMax/(24*time.Hour)))
}

// boundByGrant refuses a request whose grant has ended, and makes the
// tokens it is about to issue expire no later than the grant (fosite
// gives each its own lifespan from now, and knows no grant's end).
func (s *Server) boundByGrant(ar fosite.AccessRequester) error {
	sess, ok := ar.GetSession().(*Session)
	if !ok || sess.GrantedAt.IsZero() {
		return nil // a code stored before grants had a start: it lives 5 minutes
	}
	end := s.grantEnd(sess)
	if !s.now().Before(end) {
		return s.grantEnded(sess)
	}
	for _, kind := range []fosite.TokenType{fosite.AccessToken, fosite.RefreshToken} {
		if exp := sess.GetExpiresAt(kind); exp.IsZero() || exp.After(end) {
			sess.SetExpiresAt(kind, end)
		}
	}
	return nil
}

// revoke is RFC 7009's endpoint: revoking a refresh token ends its grant
// (its access tokens too); revoking an unknown token succeeds.
// fosite answers 200 to all but a malformed request or a bad client, so
// the two errors a client must hear are written here (RFC 7009 §2.1,
// §2.2.1): another client's token is not revoked (unauthorized_client),
// and a revocation the database failed is to be retried (503), not taken
// for done.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	cors(w)
	if s.notAForm(w, r, "revoke") {
		return
	}
	// RFC 7009 §2.1: token is required, and a public client names itself.
	// fosite looked an absent token up and answered 200 (as for an unknown
	// one), and blamed a missing client_id on the redirect URI.
	if r.Method == http.MethodPost && r.ParseForm() == nil && r.Header.Get("Authorization") == "" {
		switch {
		case r.PostForm.Get("client_id") == "":
			writeJSONError(w, http.StatusBadRequest, "invalid_request", "client_id: required: the client_id your registration gave (or your Client ID Metadata Document's URL)")
			return
		case r.PostForm.Get("token") == "":
			writeJSONError(w, http.StatusBadRequest, "invalid_request", "token: required: the access or refresh token to revoke")
			return
		}
	}
	err := s.provider.NewRevocationRequest(r.Context(), r)
	switch {
	case unavailable(err):
		s.retryLater(w, r, "revoke", err)
		return
	case s.failed(w, r, "revoke", err):
		return
	case errors.Is(err, fosite.ErrTemporarilyUnavailable):
		s.log.ErrorContext(r.Context(), "oauth revoke: the token could not be revoked (the database failed)")
		w.Header().Set("Retry-After", "5")
		writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "Taasky could not revoke the token just now; it may still be valid: retry in a few seconds")
		return
	case errors.Is(err, fosite.ErrUnauthorizedClient):
		s.logRefusal(r.Context(), "revoke", err)
		writeJSONError(w, http.StatusBadRequest, "unauthorized_client", "token: it was issued to another client, and only that client may revoke it")
		return
	case err != nil:
		s.logRefusal(r.Context(), "revoke", err)
	}
	s.provider.WriteRevocationResponse(r.Context(), w, err)
}

// notAForm refuses a POST to the token or revocation endpoint whose body
// is not a form (RFC 6749 §4.1.3, RFC 7009 §2.1), naming what it is: fosite
// read a JSON body as no parameters at all, and said the body was empty,
// or the revocation's check that client_id was missing. A form is what
// net/http parses as one (ParseForm): its media type, whatever a parameter
// Go cannot read (";charset") says. The description names the media type
// only, in RFC 6749 §5.2's characters (printable ASCII but '"' and '\'):
// not the header as sent, quotes and all.
func (s *Server) notAForm(w http.ResponseWriter, r *http.Request, endpoint string) bool {
	ct := r.Header.Get("Content-Type")
	if r.Method != http.MethodPost || (ct == "" && r.ContentLength == 0) {
		return false
	}
	mt, _, err := mime.ParseMediaType(ct)
	if (err == nil || errors.Is(err, mime.ErrInvalidMediaParameter)) && mt == "application/x-www-form-urlencoded" {
		return false
	}
	sent := mt
	switch {
	case ct == "":
		sent = "no Content-Type"
	case sent == "":
		sent = "Content-Type " + descriptionSafe(ct, 64)
	}
	rfc := "RFC 6749 section 4.1.3"
	if endpoint == "revoke" {
		rfc = "RFC 7009 section 2.1"
	}
	err = fosite.ErrInvalidRequest.WithHintf("The body must be a form, Content-Type: application/x-www-form-urlencoded (got %s).", sent)
	s.logRefusal(r.Context(), endpoint, err)
	writeJSONError(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("the body must be a form: Content-Type: application/x-www-form-urlencoded, not %s (%s)", sent, rfc))
	return true
}

// descriptionSafe is s cut to n bytes in the characters RFC 6749 §5.2
// allows in an error_description, each other one written '?'.
func descriptionSafe(s string, n int) string {
	b := []byte(s)
	if len(b) > n {
		b = b[:n]
	}
	for i, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b[i] = '?'
		}
	}
	return string(b)
}

// unavailable: err is the database not answering (a failover, a restart),
// or rolling the request back to break a deadlock (app.RetryLater),
// whatever fosite made of it: its client authentication turns any failure
// to read the client into invalid_client, the answer for an unknown
// client, on which an MCP client throws its registration and tokens away
// and asks its person to connect again.
func unavailable(err error) bool {
	f, ok := errors.AsType[*storageFailure](err)
	return ok && (app.RetryLater(f.err) || errors.Is(f.err, context.DeadlineExceeded))
}

// retryLater answers a request the database could not take: 503 with
// Retry-After, to be sent again as it was.
func (s *Server) retryLater(w http.ResponseWriter, r *http.Request, endpoint string, err error) {
	s.logRefusal(r.Context(), endpoint, err)
	w.Header().Set("Retry-After", "5")
	writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable",
		"Taasky's database did not answer just now (restarting, switching to its standby, or out of connections): send the same request again in a few seconds")
}

// storeFailed logs a failure of the database to read or keep what a
// request needs (what: the step) and sets the answer's Retry-After: 5, for
// the 503 that says to send it again. The database away or too slow
// (app.RetryLater, or past the request's bound) is logged as the other
// doors log it (app.RetryLogged: WARN but for a lock conflict), anything
// else at ERROR.
func (s *Server) storeFailed(w http.ResponseWriter, r *http.Request, what string, err error) {
	level, why := slog.LevelError, "failed"
	if app.RetryLater(err) || errors.Is(err, context.DeadlineExceeded) {
		level, why = app.RetryLogged(err)
	}
	s.log.Log(r.Context(), level, what+": "+why, "err", err)
	w.Header().Set("Retry-After", "5")
}

// failed answers a request whose client or grant Taasky could not read
// for another reason than the database being away (unavailable): 500
// server_error, logged at ERROR with its cause. fosite would answer a
// failure to read the client 401 invalid_client, on which an MCP client
// throws its registration away. It reports whether it answered.
func (s *Server) failed(w http.ResponseWriter, r *http.Request, endpoint string, err error) bool {
	if _, ok := errors.AsType[*storageFailure](err); !ok {
		return false
	}
	s.logRefusal(r.Context(), endpoint, err)
	writeJSONError(w, http.StatusInternalServerError, "server_error", "Taasky could not read this request's client or grant just now: the failure is Taasky's, and logged; try again later")
	return true
}

// logRefusal logs what went wrong without what was sent (a code, a
// token): the error's code, and its cause only when the database or
// Taasky failed (server_error: logged each time at ERROR, not a refusal;
// the database away or too slow at WARN, as app.RetryLogged says).
// A refusal (a bad client, code or token: anyone can send one) is counted
// by its error code and logged at most once per refusals.Every for each
// (refusals.Refusals), not once per request.
func (s *Server) logRefusal(ctx context.Context, endpoint string, err error) {
	rfc := fosite.ErrorToRFC6749Error(err)
	if f, ok := errors.AsType[*storageFailure](err); ok {
		level := slog.LevelError
		if unavailable(err) { // the database away: WARN, as the other doors log it
			level, _ = app.RetryLogged(f.err)
		}
		s.log.Log(ctx, level, "oauth "+endpoint, "error", rfc.ErrorField, "cause", f.err)
		return
	}
	if rfc.ErrorField == fosite.ErrServerError.ErrorField {
		// Taasky's failure, answered 500: not the client's, logged each
		// time at ERROR, with its cause (none of what was sent).
		cause := rfc.Cause()
		if cause == nil {
			cause = err
		}
		s.log.ErrorContext(ctx, "oauth "+endpoint+" failed", "error", rfc.ErrorField, "cause", cause)
		return
	}
	s.refused.Refused("oauth_"+endpoint, rfc.ErrorField, "", slog.LevelInfo, "oauth "+endpoint+" refused", "component", "oauth", "description", rfc.GetDescription())
}
