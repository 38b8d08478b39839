package oauthserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/ory/fosite"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/ratelimit"
)

// The consent screen's side of the authorize endpoint. The dashboard
// serves /oauth/authorize (it knows the person); these check the request
// each time it is shown or answered, so the form carries nothing trusted.
// Each returns either a redirect for the browser (the answer, or an error
// the client is told, with iss: RFC 9207) or an *app.Error to show the
// person (the client cannot be told: unknown client, wrong redirect_uri).

type pending struct {
	ar     fosite.AuthorizeRequester
	client app.OAuthClient
	auth   app.OAuthAuthorization
}

// ReadAuthorization checks the request for the person userID.
func (s *Server) ReadAuthorization(ctx context.Context, params url.Values, userID int64) (app.OAuthAuthorization, string, error) {
	p, redirect, err := s.parse(ctx, params, userID)
	if p == nil {
		return app.OAuthAuthorization{}, redirect, err
	}
	return p.auth, "", nil
}

// Approve is the person's yes for account: their agent of this client
// there (created or reconnected), and a code for the client.
func (s *Server) Approve(ctx context.Context, params url.Values, userID int64, account string) (string, error) {
	p, redirect, err := s.parse(ctx, params, userID)
	if p == nil {
		return redirect, err
	}
	if p.auth.Refusal != nil {
		return "", p.auth.Refusal
	}
	var chosen *app.Membership
	for i := range p.auth.Accounts {
		if p.auth.Accounts[i].AccountSlug == account {
			chosen = &p.auth.Accounts[i]
		}
	}
	if chosen == nil {
		return "", app.Refuse(app.ErrInvalid, "oauth8_account_choice", "account: choose one of the accounts listed (got %q)", account)
	}
	agent, err := s.store.state.Connect(ctx, userID, chosen.AccountSlug, p.client)
	if err != nil {
		return "", err
	}
	for _, sc := range p.ar.GetRequestedScopes() {
		p.ar.GrantScope(sc)
	}
	p.ar.GrantScope(Scope)
	// Requested too: fosite carries the requested audience into the token
	// request, where the resource the client names there is checked.
	p.ar.SetRequestedAudience(fosite.Arguments{p.auth.Resource})
	p.ar.GrantAudience(p.auth.Resource)
	sess := &Session{AccountID: agent.AccountID, AccountSlug: agent.AccountSlug, AgentID: agent.ID, UserID: userID,
		GrantedAt: s.now().UTC().Truncate(time.Second)}
	resp, err := s.provider.NewAuthorizeResponse(ctx, p.ar, sess)
	if err != nil {
		s.logRefusal(ctx, "authorize", err)
		return s.errorRedirect(ctx, p.ar, err)
	}
	rec := newRecorder()
	s.provider.WriteAuthorizeResponse(ctx, rec, p.ar, resp)
	return s.answerURL(rec.Header().Get("Location"))
}

// Decline is the person's no: access_denied to the client.
func (s *Server) Decline(ctx context.Context, params url.Values, userID int64) (string, error) {
	p, redirect, err := s.parse(ctx, params, userID)
	if p == nil {
		return redirect, err
	}
	return s.errorRedirect(ctx, p.ar, fosite.ErrAccessDenied.WithHint("The person declined to connect this client to Taasky."))
}

func (s *Server) parse(ctx context.Context, params url.Values, userID int64) (*pending, string, error) {
	// Each metadata document fetched spends a token of the person's
	// bucket: a signed-in person could otherwise make Taasky fetch any
	// https URL (five seconds, four hops) as often as they ask.
	client, err := s.clients.get(ctx, params.Get("client_id"), func() error {
		if ok, wait := s.fetches.Take(userID); !ok {
			return &ratelimit.Exceeded{What: "metadata document fetches", Wait: wait}
		}
		return nil
	})
	if err != nil {
		if e, ok := errors.AsType[*app.Error](err); ok && e.Code == app.ErrNotFound {
			invalid := *e // a bad request, in the same words
			invalid.Code = app.ErrInvalid
			err = &invalid
		}
		return nil, "", err
	}
	// A fault goes back to the client's redirect URI only when someone has
	// connected the client before: anyone may register one (Dynamic Client
	// Registration), and Taasky must not send a browser to a stranger's
	// site without a screen (RFC 9700 §4.11.2). A new client's faults are
	// shown to the person instead.
	known, err := s.store.state.ClientKnown(ctx, client.ID)
	if err != nil {
		return nil, "", err
	}
	if params.Get("state") == "" {
		params = maps.Clone(params)
		params.Set("state", noState)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/oauth/authorize?"+params.Encode(), nil)
	if err != nil {
		return nil, "", app.Refuse(app.ErrInvalid, "oauth8_bad_url", "the authorization request is not a valid URL")
	}
	ar, err := s.provider.NewAuthorizeRequest(ctx, req)
	// fail tells the client e (its RFC 6749 error and description) when
	// it may be told; else the person is shown shown, in their words.
	fail := func(e error, shown *app.Error) (*pending, string, error) {
		if known && ar != nil && ar.IsRedirectURIValid() {
			redirect, err := s.errorRedirect(ctx, ar, e)
			return nil, redirect, err
		}
		return nil, "", shown
	}
	// refuse is one of Taasky's own faults: the client's description is
	// the person's English.
	refuse := func(rfc *fosite.RFC6749Error, shown *app.Error) (*pending, string, error) {
		return fail(rfc.WithHint(shown.Message), shown)
	}
	if err != nil {
		if _, ok := errors.AsType[*storageFailure](err); ok {
			s.logRefusal(ctx, "authorize", err)
			return nil, "", fmt.Errorf("authorize: %w", err)
		}
		return fail(err, shownFault(err, params))
	}
	// A loopback redirect may change its port only (RFC 8252 §7.3); fosite
	// lets the rest of the authority through, so the browser could be sent
	// to a port no client listens on, or with a user name. Such a URI is no
	// registered one: shown to the person, never redirected to; so is an
	// http(s) one without a host (https:evil.example, which a client may
	// have registered before registration refused it: the consent screen
	// would show no host, and a browser would go to evil.example).
	if u := ar.GetRedirectURI(); u.User != nil || !app.ValidPort(u.Port()) || (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return nil, "", app.Refuse(app.ErrInvalid, "oauth8_redirect_loopback", "redirect_uri: %s is not a registered redirect URI (a loopback one may change its port, 1 to 65535, and nothing else)", u.Redacted())
	}
	switch m, ch := params.Get("code_challenge_method"), params.Get("code_challenge"); {
	case ch == "":
		return refuse(fosite.ErrInvalidRequest, app.Refuse(app.ErrInvalid, "oauth8_pkce_required", "code_challenge: PKCE is required (code_challenge_method S256)."))
	case m != "S256":
		return refuse(fosite.ErrInvalidRequest, app.Refuse(app.ErrInvalid, "oauth8_pkce_method", "code_challenge_method: only S256 is supported (got %q; plain is refused).", m))
	case !s256Challenge.MatchString(ch):
		// No verifier could ever match it: refused before the person
		// consents, rather than at the token endpoint after.
		return refuse(fosite.ErrInvalidRequest, app.Refuse(app.ErrInvalid, "oauth8_pkce_challenge",
			"code_challenge: an S256 challenge is BASE64URL(SHA-256(code_verifier)) without padding, 43 characters of A-Z, a-z, 0-9, - and _; this one has %d.", len(ch)))
	}
	auth := app.OAuthAuthorization{Client: client, RedirectURI: ar.GetRedirectURI().String(), RedirectHost: ar.GetRedirectURI().Host}
	resources := params["resource"]
	var account string
	switch {
	case len(resources) > 1:
		return refuse(errInvalidTarget, app.Refuse(app.ErrInvalid, "oauth8_resource_one", "resource: ask for one resource, the MCP URL you were given."))
	case len(resources) == 0 || resources[0] == s.ResourceURL(""):
		auth.Resource = s.ResourceURL("")
	default:
		slug, ok := strings.CutPrefix(resources[0], s.base+"/mcp/")
		if !ok || slug == "" || strings.ContainsAny(slug, "/?#") {
			return refuse(errInvalidTarget, app.Refuse(app.ErrInvalid, "oauth8_resource_not_mcp",
				"resource: %s is not a Taasky MCP URL (%s/mcp or %s/mcp/{account}).", resources[0], s.base, s.base))
		}
		exists, err := s.accounts.AccountExists(ctx, slug)
		if err != nil {
			return nil, "", err
		}
		if !exists {
			return refuse(errInvalidTarget, app.Refuse(app.ErrInvalid, "oauth8_resource_no_account", "resource: there is no account %q at this Taasky.", slug))
		}
		auth.Resource, auth.Fixed, account = resources[0], true, slug
	}
	ms, err := s.store.state.ConnectableAccounts(ctx, userID)
	if err != nil {
		return nil, "", err
	}
	for _, m := range ms {
		if !auth.Fixed || m.AccountSlug == account {
			auth.Accounts = append(auth.Accounts, m)
		}
	}
	switch {
	case auth.Fixed && len(auth.Accounts) == 0:
		auth.Refusal = app.Refuse(app.ErrUnauthorized, "consent.not_member",
			"You are not a member of the account %s, so you cannot connect an agent for it. Ask one of its owners to add you, or decline.", account)
	case len(auth.Accounts) == 0:
		auth.Refusal = app.Refuse(app.ErrUnauthorized, "consent.no_account",
			"You are not a member of any account yet, so there is nothing to connect an agent for. Ask an account's owner to add you, or decline.")
	}
	auth.NewClient = !known
	auth.ClientHost = client.Host()
	auth.HostDiffers = auth.ClientHost != "" && !strings.EqualFold(auth.ClientHost, ar.GetRedirectURI().Hostname())
	return &pending{ar: ar, client: client, auth: auth}, "", nil
}

func (s *Server) errorRedirect(ctx context.Context, ar fosite.AuthorizeRequester, err error) (string, error) {
	rec := newRecorder()
	s.provider.WriteAuthorizeError(ctx, rec, ar, err)
	loc := rec.Header().Get("Location")
	if loc == "" {
		return "", shownFault(err, ar.GetRequestForm())
	}
	return s.answerURL(loc)
}

// shownFault is a fault of fosite's in an authorization request, as the
// person is shown it, in words the catalog has in every language: the
// client cannot be told, so the person reads it (and perhaps tells the
// client's makers). A fault with no words of its own is the client's
// error and fosite's description, in English, in a sentence of the
// person's language.
func shownFault(err error, params url.Values) *app.Error {
	rfc := fosite.ErrorToRFC6749Error(err)
	switch rfc.ErrorField {
	case fosite.ErrInvalidRequest.ErrorField:
		switch {
		case strings.Contains(rfc.HintField, "'redirect_uri' parameter does not match"):
			return app.Refuse(app.ErrInvalid, "oauth8_redirect_unregistered", "redirect_uri: %s is not one of the redirect URIs this client registered.", params.Get("redirect_uri"))
		case strings.Contains(rfc.HintField, "The redirect URI"):
			return app.Refuse(app.ErrInvalid, "oauth8_redirect_invalid", "redirect_uri: %s is not a valid redirect URI (it holds a fragment, #, or cannot be read).", params.Get("redirect_uri"))
		}
	case fosite.ErrUnsupportedResponseType.ErrorField:
		return app.Refuse(app.ErrInvalid, "oauth8_response_type", "response_type: Taasky supports code only (got %q).", params.Get("response_type"))
	case fosite.ErrUnsupportedResponseMode.ErrorField:
		return app.Refuse(app.ErrInvalid, "oauth8_response_mode", "response_mode: Taasky answers in the query only (got %q).", params.Get("response_mode"))
	case fosite.ErrInvalidScope.ErrorField:
		return app.Refuse(app.ErrInvalid, "oauth8_scope", "scope: this client may not ask for %q.", params.Get("scope"))
	case fosite.ErrRequestNotSupported.ErrorField, fosite.ErrRequestURINotSupported.ErrorField,
		fosite.ErrInvalidRequestURI.ErrorField, fosite.ErrInvalidRequestObject.ErrorField:
		return app.Refuse(app.ErrInvalid, "oauth8_request_object", "request, request_uri: Taasky reads an authorization request from its URL's parameters only.")
	}
	return app.Refuse(app.ErrInvalid, "oauth8_refused", "%s: %s", rfc.ErrorField, rfc.GetDescription())
}

// s256Challenge is the form of an S256 code_challenge (RFC 7636 §4.2):
// 32 bytes in unpadded base64url.
var s256Challenge = regexp.MustCompile(`^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$`)

// noState stands in for the state a request did not send (fosite cannot
// do without one); answerURL takes it out again.
const noState = "taasky:no-state"

// answerURL is the client's redirect as fosite wrote it, with iss (RFC
// 9207), and without the state the client did not send.
func (s *Server) answerURL(loc string) (string, error) {
	u, err := url.Parse(loc)
	if err != nil || loc == "" {
		return "", app.Refuse(app.ErrInvalid, "oauth8_answer_unparsable", "redirect_uri: cannot be parsed")
	}
	q := u.Query()
	q.Set("iss", s.base)
	if q.Get("state") == noState {
		q.Del("state")
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// recorder keeps what fosite writes: its headers (a redirect's Location).
type recorder struct {
	h    http.Header
	code int
}

func newRecorder() *recorder { return &recorder{h: http.Header{}} }

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(code int)        { r.code = code }
