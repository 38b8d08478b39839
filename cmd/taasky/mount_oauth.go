package main

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/oauthserver"
)

// oauthDoor is Taasky's authorization server and its state, as the MCP
// endpoint (access tokens) and the dashboard (consent, Settings) use them.
type oauthDoor struct {
	server *oauthserver.Server
	state  *app.OAuth
}

// mountOAuth serves the authorization server's endpoints and metadata
// (MCP authorization). Metadata documents may be fetched from private
// addresses only in dev.
func mountOAuth(a *fiber.App, d deps) (*oauthDoor, error) {
	state := app.NewOAuth(d.pool)
	state.SetAgentCap(d.cfg.Abuse.AgentsPerAccountMax)
	s, err := oauthserver.New(oauthserver.Config{BaseURL: d.cfg.BaseURL, Secret: d.cfg.Key("oauth"), PreviousSecret: d.cfg.PreviousKey("oauth"), State: state,
		Accounts: d.accounts, AllowPrivateFetch: d.cfg.Role&config.RoleDev != 0, TrustedProxies: d.cfg.Abuse.TrustedProxies,
		GrantMaxAge: d.cfg.OAuthGrantMax, Log: d.log.With("component", "oauth"), Refusals: d.refusals()})
	if err != nil {
		return nil, err
	}
	s.Mount(a)
	return &oauthDoor{server: s, state: state}, nil
}

// mcpAuth checks agent keys and access tokens.
type mcpAuth struct {
	*app.Accounts
	*oauthserver.Server
}

// consent is the dashboard's view of OAuth.
type consent struct {
	*oauthserver.Server
	*app.OAuth
}

func (o *oauthDoor) mcpAuth(accounts *app.Accounts) mcpAuth { return mcpAuth{accounts, o.server} }

func (o *oauthDoor) consent() consent { return consent{o.server, o.state} }
