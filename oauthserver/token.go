package oauthserver

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ory/fosite"
)

// codeLifespan is how long an authorization code may be exchanged.
const codeLifespan = 5 * time.Minute

// errInvalidTarget is RFC 8707's refusal of a resource the grant is not for.
var errInvalidTarget = &fosite.RFC6749Error{ErrorField: "invalid_target", CodeField: http.StatusBadRequest,
	DescriptionField: "The requested resource is invalid, unknown, or not the one this grant is for."}

// token is the token endpoint: a code (with its PKCE verifier) or a
// refresh token for an access token and a new refresh token. A reused
// code or refresh token revokes the grant (fosite).
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	cors(w)
	ctx := r.Context()
	ar, err := s.provider.NewAccessRequest(ctx, r, &Session{})
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
		}
		s.logRefusal("token", err)
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	// RFC 8707 §2.2: a resource named here must be the one granted; the
	// code stays usable (nothing is spent before NewAccessResponse).
	granted := append(slices.Clone(ar.GetGrantedAudience()), ar.GetRequestedAudience()...)
	for _, res := range ar.GetRequestForm()["resource"] {
		if !slices.Contains(granted, res) {
			err := errInvalidTarget.WithHintf("resource: this grant is for %s, not %s.", strings.Join(granted, " "), res)
			s.provider.WriteAccessError(ctx, w, ar, err)
			return
		}
	}
	resp, err := s.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		s.logRefusal("token", err)
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	s.provider.WriteAccessResponse(ctx, w, ar, resp)
}

// revoke is RFC 7009's endpoint: revoking a refresh token ends its grant
// (its access tokens too); revoking an unknown token succeeds.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	cors(w)
	err := s.provider.NewRevocationRequest(r.Context(), r)
	if err != nil {
		s.logRefusal("revoke", err)
	}
	s.provider.WriteRevocationResponse(r.Context(), w, err)
}

// logRefusal logs what went wrong without what was sent (a code, a
// token): the error's code, and its cause only when the database failed.
func (s *Server) logRefusal(endpoint string, err error) {
	rfc := fosite.ErrorToRFC6749Error(err)
	if f, ok := errors.AsType[*storageFailure](err); ok {
		s.log.Error("oauth "+endpoint, "error", rfc.ErrorField, "cause", f.err)
		return
	}
	s.log.Info("oauth "+endpoint+" refused", "error", rfc.ErrorField, "description", rfc.GetDescription())
}
