package main

import (
	"context"
	"encoding/base64"

	"github.com/gofiber/fiber/v2"
	"github.com/taasky/taasky/internal/fiberhttp"

	"github.com/taasky/taasky/dashboard"
	"github.com/taasky/taasky/dashboard/devoidc"
)

// devIssuerPath is where `taasky dev` serves its embedded OpenID Connect
// provider, on the same app: BASE_URL + devIssuerPath is the issuer.
const devIssuerPath = "/dev-oidc"

// mountDevIssuer serves the development identity provider (a real OIDC
// provider whose login page signs in any address) and returns the
// dashboard's client registration with it. Dev only: see package devoidc.
func mountDevIssuer(a *fiber.App, d deps) (dashboard.OIDC, error) {
	issuer := d.cfg.BaseURL + devIssuerPath
	secret := base64.RawURLEncoding.EncodeToString(d.cfg.Key("dev-oidc-client"))
	var crypto [32]byte
	copy(crypto[:], d.cfg.Key("dev-oidc-tokens"))
	h, err := devoidc.New(devoidc.Config{
		Issuer:    issuer,
		Clients:   []devoidc.Client{{ID: "taasky-dashboard", Secret: secret, RedirectURIs: []string{d.cfg.BaseURL + "/auth/callback"}}},
		CryptoKey: crypto,
		Emails: func(ctx context.Context) ([]string, error) {
			return d.accounts.OwnerEmails(ctx, 20)
		},
	})
	if err != nil {
		return dashboard.OIDC{}, err
	}
	a.All(devIssuerPath+"/*", fiberhttp.Handler(h))
	// The issuer follows BASE_URL: after another LISTEN_ADDR or BASE_URL on
	// the same database, its logins take over those of the earlier one.
	d.accounts.UseDevIssuer(issuer, devIssuerPath)
	d.log.Info("embedded OIDC issuer (dev only)", "issuer", issuer)
	return dashboard.OIDC{Issuer: issuer, ClientID: "taasky-dashboard", ClientSecret: secret}, nil
}
