package oauthserver

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// ResourceURL is the resource an account's MCP endpoint is: {base}/mcp/{account},
// or {base}/mcp for "" (the account is chosen at the consent).
func (s *Server) ResourceURL(account string) string {
	if account == "" {
		return s.base + "/mcp"
	}
	return s.base + "/mcp/" + account
}

// ResourceMetadataURL is where the resource's metadata (RFC 9728) is.
func (s *Server) ResourceMetadataURL(account string) string {
	return s.base + "/.well-known/oauth-protected-resource" + strings.TrimPrefix(s.ResourceURL(account), s.base)
}

// serverMetadata is RFC 8414's document, as MCP authorization asks.
func (s *Server) serverMetadata(w http.ResponseWriter, _ *http.Request) {
	cors(w)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	// go-sdk's AuthServerMeta writes jwks_uri even when empty, and "" is
	// no URI (RFC 8414: the member is optional). Taasky's access tokens are
	// opaque and it signs nothing with keys for OAuth (/.well-known/jwks.json
	// holds the receipts' keys), so the member is left out: the outer
	// field, with omitempty, hides the embedded one from encoding/json.
	_ = json.NewEncoder(w).Encode(struct {
		*oauthex.AuthServerMeta
		JWKSURI string `json:"jwks_uri,omitempty"`
	}{AuthServerMeta: &oauthex.AuthServerMeta{
		Issuer:                s.base,
		AuthorizationEndpoint: s.base + "/oauth/authorize",
		TokenEndpoint:         s.base + "/oauth/token",
		RegistrationEndpoint:  s.base + "/oauth/register",
		RevocationEndpoint:    s.base + "/oauth/revoke",
		// offline_access: every grant has a refresh token anyway; listed, as
		// MCP authorization's 2026-07-28 revision asks of a server that
		// issues them (never in the resource's own scopes).
		ScopesSupported:                            []string{Scope, "offline_access"},
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		RevocationEndpointAuthMethodsSupported:     []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          true,
		AuthorizationResponseIssParameterSupported: true,
	}})
}

// basePath is BaseURL's path ("" for none, else "/taasky"): a proxy in
// front strips it, and clients look for the metadata documents with it
// after the well-known segment (RFC 8414 §3.1, RFC 9728 §3.1).
func (s *Server) basePath() string {
	_, rest, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(s.base, "https://"), "http://"), "/")
	if rest == "" {
		return ""
	}
	return "/" + rest
}

// resourceMetadata is RFC 9728's document of /mcp or /mcp/{account}
// (served by go-sdk's handler); an account that does not exist has none.
func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	s.resourceMetadataAt("/.well-known/oauth-protected-resource/mcp")(w, r)
}

// resourceMetadataAt is resourceMetadata served at prefix (then "" or
// "/{account}").
func (s *Server) resourceMetadataAt(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { s.resourceMetadataOf(w, r, prefix) }
}

func (s *Server) resourceMetadataOf(w http.ResponseWriter, r *http.Request, prefix string) {
	account, _ := strings.CutPrefix(r.URL.Path, prefix)
	account = strings.TrimPrefix(account, "/")
	if r.Method == http.MethodHead {
		// go-sdk's handler answers GET alone; HEAD is GET without its
		// body (RFC 9110 §9.3.2).
		r = r.Clone(r.Context())
		r.Method = http.MethodGet
		w = headOnly{w}
	}
	if r.Method == http.MethodGet && account != "" {
		ok, err := s.accounts.AccountExists(r.Context(), account)
		if err != nil {
			s.storeFailed(w, r, "resource metadata", err)
			metadataError(w, http.StatusServiceUnavailable, "server_error", "Taasky could not look the account up just now; retry in a few seconds")
			return
		}
		if !ok {
			metadataError(w, http.StatusNotFound, "not_found", "no such account: its MCP URL is "+s.base+"/mcp/{account}, or use "+s.base+"/mcp and choose the account when you consent")
			return
		}
	}
	name := "Taasky"
	if account != "" {
		name = "Taasky (" + account + ")"
	}
	auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               s.ResourceURL(account),
		AuthorizationServers:   []string{s.base},
		ScopesSupported:        []string{Scope},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           name,
	}).ServeHTTP(w, r)
}

// metadataError answers a resource's metadata that is not there, or not
// now, as an OAuth error in JSON, readable from any origin as the
// metadata itself is.
func metadataError(w http.ResponseWriter, status int, code, description string) {
	body, _ := json.Marshal(map[string]string{"error": code, "error_description": description})
	w.Header().Set("Content-Type", "application/json")
	cors(w)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// headOnly answers HEAD: the headers GET would have, no body.
type headOnly struct{ http.ResponseWriter }

func (h headOnly) Write(p []byte) (int, error) { return len(p), nil }
