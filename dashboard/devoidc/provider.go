package devoidc

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/zitadel/oidc/v3/pkg/op"
)

// Config is the provider's setup.
type Config struct {
	// Issuer is the provider's URL; its path is where the handler is
	// mounted (e.g. http://127.0.0.1:8080/dev-oidc).
	Issuer string
	// Clients are the relying parties allowed to sign in through it.
	Clients []Client
	// CryptoKey encrypts the provider's opaque tokens.
	CryptoKey [32]byte
	// Emails offers addresses to pick on the login page (the demo
	// accounts' owners); any other address may be typed.
	Emails func(ctx context.Context) ([]string, error)
}

// Client is a registered relying party.
type Client struct {
	ID           string
	Secret       string
	RedirectURIs []string
}

// New returns the provider's handler, to serve at the issuer's path (the
// handler expects the full request path, prefix included).
func New(c Config) (http.Handler, error) {
	h, _, err := newProvider(c)
	return h, err
}

// newProvider is New, with the storage behind the handler.
func newProvider(c Config) (http.Handler, *storage, error) {
	u, err := url.Parse(c.Issuer)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, nil, fmt.Errorf("devoidc: issuer %q is not an absolute URL", c.Issuer)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	st := newStorage(strings.TrimSuffix(c.Issuer, "/"), c.Clients, key)
	provider, err := op.NewProvider(&op.Config{
		CryptoKey:      c.CryptoKey,
		CodeMethodS256: true,
		AuthMethodPost: true,
	}, st, op.StaticIssuer(strings.TrimSuffix(c.Issuer, "/")), op.WithAllowInsecure())
	if err != nil {
		return nil, nil, fmt.Errorf("devoidc: %w", err)
	}
	prefix := strings.TrimSuffix(u.Path, "/")
	mux := http.NewServeMux()
	l := &login{storage: st, emails: c.Emails}
	mux.HandleFunc("GET /login", l.show)
	mux.HandleFunc("POST /login", l.submit)
	mux.Handle("/", provider)
	return http.StripPrefix(prefix, mux), st, nil
}
