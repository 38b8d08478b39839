package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// oidcClient is the OpenID Connect relying party: discovery happens at the
// first sign-in (and again after a failure), so the service starts while
// the provider is away, and an embedded provider served by this very app
// can be discovered once the app listens.
type oidcClient struct {
	ctx         context.Context // the provider's key fetches run under it
	cfg         OIDC
	redirectURL string

	mu       sync.Mutex
	provider *oidc.Provider
	oauth    *oauth2.Config
	verifier *oidc.IDTokenVerifier
}

func newOIDCClient(ctx context.Context, cfg OIDC, redirectURL string) *oidcClient {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	return &oidcClient{ctx: oidc.ClientContext(ctx, cfg.HTTPClient), cfg: cfg, redirectURL: redirectURL}
}

var errNoOIDC = errors.New("sign-in is not configured (OIDC_ISSUER)")

// get returns the discovered provider, discovering it if needed.
func (o *oidcClient) get() (*oidc.Provider, *oauth2.Config, *oidc.IDTokenVerifier, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cfg.Issuer == "" {
		return nil, nil, nil, errNoOIDC
	}
	if o.provider == nil {
		p, err := oidc.NewProvider(o.ctx, o.cfg.Issuer)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("discover the OIDC provider %s: %w", o.cfg.Issuer, err)
		}
		o.provider = p
		o.oauth = &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, Endpoint: p.Endpoint(),
			RedirectURL: o.redirectURL, Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
		o.verifier = p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID})
	}
	return o.provider, o.oauth, o.verifier, nil
}

// exchangeContext is a request's context carrying the provider's client.
func (o *oidcClient) exchangeContext(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, o.cfg.HTTPClient)
}

// providerAway reports whether err says the identity provider did not
// answer (no connection, no answer in time) or answered that it cannot now
// (a 5xx or 429 to the token request): the person is told to try again in
// a minute (503), not that their sign-in "could not be verified", which
// sends them to start again at a provider that is away.
func providerAway(err error) bool {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.Response != nil && (re.Response.StatusCode >= 500 || re.Response.StatusCode == http.StatusTooManyRequests)
	}
	var ue *url.Error
	return errors.As(err, &ue)
}

// providerRetryAfter is the Retry-After of a sign-in the provider did not
// answer: the page says to try again in a minute.
const providerRetryAfter = "60"
