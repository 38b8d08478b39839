package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
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
	now         func() time.Time

	mu       sync.Mutex
	provider *oidc.Provider
	oauth    *oauth2.Config
	verifier *oidc.IDTokenVerifier

	// What the provider was last seen doing (seen, away).
	health sync.Mutex
	up     time.Time // it last answered: its discovery, a code's exchange, a probe
	gone   time.Time // it last did not (providerAway)
	probed time.Time // the last probe (away)
}

func newOIDCClient(ctx context.Context, cfg OIDC, redirectURL string, now func() time.Time) *oidcClient {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	return &oidcClient{ctx: oidc.ClientContext(ctx, cfg.HTTPClient), cfg: cfg, redirectURL: redirectURL, now: now}
}

const (
	// providerFresh is how recent an answer of the provider lets /login
	// send a browser on to it without asking it first.
	providerFresh = time.Minute
	// providerProbeEvery spaces the probes of a provider that has not
	// answered lately: in between, the last probe's answer holds.
	providerProbeEvery = 5 * time.Second
	// providerProbeTimeout bounds a probe, which a sign-in waits for.
	providerProbeTimeout = 3 * time.Second
)

// seen records what a request to the provider met: an answer (err nil), or
// none (providerAway(err)); other errors say nothing of its presence.
func (o *oidcClient) seen(err error) {
	now := o.now()
	o.health.Lock()
	defer o.health.Unlock()
	switch {
	case err == nil:
		o.up = now
	case providerAway(err):
		o.gone = now
	}
}

// away reports whether /login is to answer that sign-in is unavailable
// rather than send the browser on to a provider that does not answer,
// whose absence the browser would show in words of its own, and from
// where the person never comes back. A provider that answered within
// providerFresh, and has not failed since, is taken as there, at no cost:
// a sign-in finished lately, or the discovery, says so. Otherwise (a
// code's exchange found it away, or nothing was heard of it lately) its
// discovery document is fetched, at most every providerProbeEvery: so a
// sign-in costs no request while people sign in, and at most one every 5
// seconds (each process) while the provider is away, which is noticed
// back within those 5 seconds.
func (o *oidcClient) away(ctx context.Context) bool {
	now := o.now()
	o.health.Lock()
	defer o.health.Unlock()
	if o.up.After(o.gone) && now.Sub(o.up) < providerFresh {
		return false
	}
	if now.Sub(o.probed) < providerProbeEvery {
		return o.gone.After(o.up)
	}
	o.probed = now
	if o.probe(ctx) {
		o.up = now
		return false
	}
	o.gone = now
	return true
}

// probe asks for the provider's discovery document: whether it answered,
// within providerProbeTimeout, with anything but a 5xx or 429.
func (o *oidcClient) probe(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, providerProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(o.cfg.Issuer, "/")+"/.well-known/openid-configuration", nil)
	if err != nil {
		return false
	}
	resp, err := o.cfg.HTTPClient.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return resp.StatusCode < http.StatusInternalServerError && resp.StatusCode != http.StatusTooManyRequests
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
		o.seen(err)
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
