package main

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard"
)

// mountDashboard mounts the humans' pages on a, with the embedded OIDC
// issuer in dev when no OIDC_ISSUER is set, and starts this process's one
// LISTEN connection for live pages (it ends with ctx).
func mountDashboard(ctx context.Context, a *fiber.App, d deps) error {
	oidc := dashboard.OIDC{Issuer: d.cfg.OIDC.Issuer, ClientID: d.cfg.OIDC.ClientID, ClientSecret: d.cfg.OIDC.ClientSecret}
	if oidc.Issuer == "" {
		if d.cfg.Role&app.RoleDev == 0 {
			return errors.New("dashboard: OIDC_ISSUER is required")
		}
		var err error
		if oidc, err = mountDevIssuer(a, d); err != nil {
			return err
		}
	}
	hub := dashboard.NewHub(d.rooms.RoomAccounts, d.log.With("component", "live"))
	go app.ListenRoomChanges(ctx, d.pool.Config().ConnConfig.Copy(), hub.Publish, d.log.With("component", "live"))
	dash, err := dashboard.New(ctx, dashboard.Config{
		BaseURL:    d.cfg.BaseURL,
		SessionKey: d.cfg.Key("session"),
		OIDC:       oidc,
		Rooms:      d.rooms,
		Accounts:   d.accounts,
		Hub:        hub,
		Log:        d.log.With("component", "dashboard"),
	})
	if err != nil {
		return err
	}
	dash.Mount(a)
	return nil
}
