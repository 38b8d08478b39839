package oauthserver

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"

	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/internal/ratelimit"
	"github.com/taasky/taasky/internal/refusals"
)

// Config is what the server is built with.
type Config struct {
	// BaseURL is the public URL (no trailing slash): the issuer, and the
	// resources {BaseURL}/mcp and {BaseURL}/mcp/{account}.
	BaseURL string
	// Secret signs the tokens (HMAC; at least 32 bytes, e.g.
	// config.Config.Key("oauth")). Every process must have the same one.
	Secret []byte
	// PreviousSecret is Secret under SECRET_KEY_PREVIOUS during a rotation
	// of SECRET_KEY (nil: none): the codes and tokens it signed are still
	// taken until it is removed; none is signed with it.
	PreviousSecret []byte
	State          State
	// Accounts says whether an account exists (a resource's metadata).
	Accounts AccountFinder
	// AllowPrivateFetch lets metadata documents be fetched from loopback
	// and private addresses: dev and test only.
	AllowPrivateFetch bool
	// MetadataTransport fetches metadata documents; nil: Taasky's own
	// (AllowPrivateFetch decides what it may dial). Tests pass a TLS
	// server's.
	MetadataTransport http.RoundTripper
	// RegisterLimit bounds Dynamic Client Registrations per client address
	// (the zero Limit: 10 a minute, bursts of 10).
	RegisterLimit ratelimit.Limit
	// FetchLimit bounds the Client ID Metadata Documents the consent
	// screen fetches for one signed-in person (the zero Limit: 10 a
	// minute, bursts of 10); a fresh copy Taasky keeps costs nothing.
	FetchLimit ratelimit.Limit
	// RefreshLimit bounds the refreshes of one grant (the zero Limit:
	// bursts of 10, then two per AccessTokenLifespan, twice what a client
	// refreshing as its tokens expire needs). Each refresh keeps its used
	// token to catch a reuse, so a client refreshing in a loop would
	// otherwise write rows as fast as it asks.
	RefreshLimit ratelimit.Limit
	// TrustedProxies are the proxies whose X-Forwarded-For names the
	// client a registration counts against (TRUSTED_PROXIES, as the
	// dashboard's limits).
	TrustedProxies []netip.Prefix
	// AccessTokenLifespan: 10 minutes if zero. Refresh tokens: 30 days.
	AccessTokenLifespan time.Duration
	// GrantMaxAge is how long a grant lasts from the person's consent,
	// however often its refresh token rotates (OAUTH_GRANT_MAX_DAYS):
	// then the client must ask the person again. 90 days if zero.
	GrantMaxAge time.Duration
	Log         *slog.Logger
	// Refusals counts the requests refused (a bad client, code or token)
	// and logs them sparingly: anyone can send them (nil: neither).
	Refusals *refusals.Refusals
}

// AccountFinder says whether an account with slug exists (app.Accounts).
type AccountFinder interface {
	AccountExists(ctx context.Context, slug string) (bool, error)
}

// DefaultGrantMaxAge is Config.GrantMaxAge's default: 90 days.
const DefaultGrantMaxAge = 90 * 24 * time.Hour

// Server is the authorization server. Build it with New; Mount its
// endpoints; the dashboard's consent screen calls its Consent methods, and
// the MCP door its AuthenticateAccessToken.
type Server struct {
	base     string
	provider fosite.OAuth2Provider
	store    *store
	clients  *clients
	accounts AccountFinder
	register *ratelimit.Buckets[string]
	fetches  *ratelimit.Buckets[int64]  // by person
	refresh  *ratelimit.Buckets[string] // by grant (fosite's request ID)
	trusted  []netip.Prefix
	log      *slog.Logger
	refused  *refusals.Refusals
	now      func() time.Time
	grantMax time.Duration
}

// New builds the server.
func New(c Config) (*Server, error) {
	if len(c.Secret) < 32 || (c.PreviousSecret != nil && len(c.PreviousSecret) < 32) {
		return nil, errors.New("oauthserver: the secret must be at least 32 bytes")
	}
	if c.State == nil || c.Accounts == nil {
		return nil, errors.New("oauthserver: State and Accounts are required")
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.AccessTokenLifespan == 0 {
		c.AccessTokenLifespan = 10 * time.Minute
	}
	if c.GrantMaxAge == 0 {
		c.GrantMaxAge = DefaultGrantMaxAge
	}
	if c.RegisterLimit.Rate == 0 {
		c.RegisterLimit = ratelimit.Limit{Rate: 10.0 / 60, Burst: 10}
	}
	if c.FetchLimit.Rate == 0 {
		c.FetchLimit = ratelimit.Limit{Rate: 10.0 / 60, Burst: 10}
	}
	if c.RefreshLimit.Rate == 0 {
		c.RefreshLimit = ratelimit.Limit{Rate: 2 / c.AccessTokenLifespan.Seconds(), Burst: 10}
	}
	base := strings.TrimSuffix(c.BaseURL, "/")
	cl := &clients{state: c.State, http: newMetadataClient(c.AllowPrivateFetch, c.MetadataTransport), audience: base + "/mcp", now: time.Now}
	st := &store{state: c.State, clients: cl}
	cfg := &fosite.Config{
		AccessTokenLifespan:   c.AccessTokenLifespan,
		RefreshTokenLifespan:  refreshLifespan,
		AuthorizeCodeLifespan: codeLifespan,
		GlobalSecret:          c.Secret[:32],
		RotatedGlobalSecrets:  rotated(c.PreviousSecret),
		// PKCE for every client, S256 only (OAuth 2.1, MCP authorization).
		EnforcePKCE:                    true,
		EnablePKCEPlainChallengeMethod: false,
		// A refresh token for every grant, whatever scopes were asked.
		RefreshTokenScopes: []string{},
		// OAuth 2.1 with PKCE makes state optional; fosite demands at least
		// this many characters of it (and treats 0 or less as 8), so a
		// request without one is given noState (parse).
		MinParameterEntropy: 1,
		ScopeStrategy:       fosite.ExactScopeStrategy,
		TokenURL:            base + "/oauth/token",
		AccessTokenIssuer:   base,
	}
	provider := compose.Compose(cfg, st, compose.NewOAuth2HMACStrategy(cfg),
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2TokenRevocationFactory,
		compose.OAuth2TokenIntrospectionFactory,
		compose.OAuth2PKCEFactory,
	)
	return &Server{base: base, provider: provider, store: st, clients: cl, accounts: c.Accounts,
		register: ratelimit.New[string](c.RegisterLimit, 10_000, time.Now),
		fetches:  ratelimit.New[int64](c.FetchLimit, 10_000, time.Now),
		refresh:  ratelimit.New[string](c.RefreshLimit, 100_000, time.Now), trusted: c.TrustedProxies, log: c.Log, refused: c.Refusals, now: time.Now, grantMax: c.GrantMaxAge}, nil
}

// Issuer is the authorization server's issuer identifier: BaseURL.
func (s *Server) Issuer() string { return s.base }

// Mount serves the metadata documents, registration, token and
// revocation endpoints on r. The authorize endpoint is the dashboard's
// (/oauth/authorize: it needs the person's session and shows the consent).
func (s *Server) Mount(r fiber.Router) {
	// Each document answers its CORS preflight, and only the documents
	// do: a preflight route on every /.well-known/ path made Fiber answer
	// GET of any other one 405 with "Allow: OPTIONS" rather than 404.
	// Not go-sdk's resource metadata handler's preflight: it allows
	// Content-Type only, and the TypeScript SDK reads the documents with
	// MCP-Protocol-Version (then again without it, a request lost).
	preflight := fiberhttp.Handler(http.HandlerFunc(s.preflight))
	doc := func(path string, h fiber.Handler) {
		r.Get(path, h)
		r.Options(path, preflight)
	}
	doc("/.well-known/oauth-authorization-server", fiberhttp.Handler(http.HandlerFunc(s.serverMetadata)))
	doc("/.well-known/oauth-protected-resource/mcp", fiberhttp.Handler(http.HandlerFunc(s.resourceMetadata)))
	doc("/.well-known/oauth-protected-resource/mcp/:account", fiberhttp.Handler(http.HandlerFunc(s.resourceMetadata)))
	if p := s.basePath(); p != "" {
		// An issuer with a path: where RFC 8414 and RFC 9728 put its
		// documents (the proxy passes them through as they are).
		doc("/.well-known/oauth-authorization-server"+p, fiberhttp.Handler(http.HandlerFunc(s.serverMetadata)))
		at := fiberhttp.Handler(s.resourceMetadataAt("/.well-known/oauth-protected-resource" + p + "/mcp"))
		doc("/.well-known/oauth-protected-resource"+p+"/mcp", at)
		doc("/.well-known/oauth-protected-resource"+p+"/mcp/:account", at)
	}
	r.Post("/oauth/register", fiberhttp.Handler(http.HandlerFunc(s.registerClient)))
	r.Post("/oauth/token", fiberhttp.Handler(bounded(s.token)))
	r.Post("/oauth/revoke", fiberhttp.Handler(bounded(s.revoke)))
	// The endpoints' preflights, each by its path: one route on every
	// /oauth/ path made Fiber answer any other one 405, not 404.
	for _, p := range endpointPaths {
		r.Options(p, fiberhttp.Handler(http.HandlerFunc(s.preflight)))
	}
}

// endpointPaths are the endpoints a client calls (the authorize endpoint
// is the person's, in the dashboard).
var endpointPaths = []string{"/oauth/register", "/oauth/token", "/oauth/revoke"}

// ClientPath says whether path is one a client of the authorization
// server calls, from a browser too: an endpoint or a metadata document.
// Its answers, refusals included, are OAuth errors readable from any
// origin (cors).
func ClientPath(path string) bool {
	return slices.Contains(endpointPaths, path) || strings.HasPrefix(path, "/.well-known/oauth-")
}

// requestTimeout bounds what a token or revocation request waits for the
// database: past it the request is answered 503 (retryLater) rather than
// held for as long as a connection to a primary that hung or vanished
// lives (a quarter of an hour, or for ever).
const requestTimeout = 10 * time.Second

// bounded serves h with the request's context bounded by requestTimeout.
func bounded(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		h(w, r.WithContext(ctx))
	})
}

// cors lets browser-based clients (the MCP Inspector) call the endpoints a
// client calls: they take no cookie, so any origin is as safe as none
// (fiberhttp.CORSAllowHeaders, the MCP door's too).
func cors(w http.ResponseWriter) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", fiberhttp.CORSAllowHeaders)
	w.Header().Set("Access-Control-Expose-Headers", fiberhttp.CORSExposeHeaders)
	w.Header().Set("Access-Control-Max-Age", fiberhttp.CORSMaxAge)
}

func (s *Server) preflight(w http.ResponseWriter, _ *http.Request) {
	cors(w)
	w.WriteHeader(http.StatusNoContent)
}

// rotated is fosite's RotatedGlobalSecrets for a previous secret (nil: none).
func rotated(previous []byte) [][]byte {
	if previous == nil {
		return nil
	}
	return [][]byte{previous[:32]}
}
