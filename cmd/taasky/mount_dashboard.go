package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"riverqueue.com/riverui"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard"
	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/ratelimit"
	"github.com/taasky/taasky/notify"
)

// mountDashboard mounts the humans' pages on a, with the embedded OIDC
// issuer in dev when no OIDC_ISSUER is set, and returns the Channels that
// feed its live pages: the people's access, then the rooms' changes
// (dashboard.Hub.Channels says why in this order). The River UI goes with
// it, at /admin/jobs, for operators only.
func mountDashboard(ctx context.Context, a *fiber.App, d deps, door *oauthDoor) ([]app.Channel, error) {
	oidc := dashboard.OIDC{Issuer: d.cfg.OIDC.Issuer, ClientID: d.cfg.OIDC.ClientID, ClientSecret: d.cfg.OIDC.ClientSecret}
	if oidc.Issuer == "" {
		if d.cfg.Role&config.RoleDev == 0 {
			return nil, errors.New("dashboard: OIDC_ISSUER is required")
		}
		var err error
		if oidc, err = mountDevIssuer(a, d); err != nil {
			return nil, err
		}
	}
	jobsUI, err := newJobsUI(ctx, d)
	if err != nil {
		return nil, err
	}
	hub := dashboard.NewHub(d.rooms.RoomSeats, d.log.With("component", "live"))
	cfg := dashboard.Config{
		BaseURL:    d.cfg.BaseURL,
		MailFrom:   d.cfg.MailFrom(notify.DefaultFrom(d.cfg.BaseURL)),
		SessionKey: d.cfg.Key("session"),
		// During a rotation of SECRET_KEY, the cookies signed before it.
		PreviousSessionKey: d.cfg.PreviousKey("session"),
		OIDC:               oidc,
		Rooms:              d.rooms,
		Accounts:           d.accounts,
		OAuth:              door.consent(),
		JobsUI:             jobsUI,
		Hub:                hub,
		RateLimit:          ratelimit.Limit{Rate: d.cfg.Abuse.WebRate, Burst: d.cfg.Abuse.WebBurst},
		// The delivery log's page says how long it keeps a line.
		DeliveryLogDays: int(d.cfg.Retention.DeliveryLog / config.Day),
		// Settings says when each OAuth grant ends.
		OAuthGrantMax: d.cfg.OAuthGrantMax,
		// TrustedProxies are the dashboard's alone: the Fiber app sets no
		// ProxyHeader, as Fiber would take the leftmost X-Forwarded-For,
		// which the client writes.
		TrustedProxies: d.cfg.Abuse.TrustedProxies,
		Log:            d.log.With("component", "dashboard"),
	}
	if d.notify != nil && d.notify.svc != nil {
		cfg.Notifications, cfg.Webhooks = d.notify.svc, d.notify.hooks
	}
	if d.cfg.VAPID != nil {
		cfg.VAPIDPublicKey = d.cfg.VAPID.PublicKey
	}
	if cfg.Receipts = d.receipts; cfg.Receipts == nil {
		if cfg.Receipts, err = receiptKeys(d.cfg); err != nil {
			return nil, err
		}
	}
	dash, err := dashboard.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	dash.Mount(a)
	// The room changes wake the waiting reads of the MCP tools, too.
	return hub.Channels(d.rooms.RoomChanges), nil
}

// newJobsUI is the River UI on the process's River client, its background
// work bound to ctx. Job args are hidden in its lists until asked for: they
// name users and rooms (never a secret: an invitation's code is sealed).
func newJobsUI(ctx context.Context, d deps) (http.Handler, error) {
	h, err := riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints:                riverui.NewEndpoints(d.river, nil),
		JobListHideArgsByDefault: true,
		Logger:                   d.log.With("component", "riverui"),
		Prefix:                   dashboard.JobsUIPath,
	})
	if err != nil {
		return nil, fmt.Errorf("river ui: %w", err)
	}
	if err := h.Start(ctx); err != nil {
		return nil, fmt.Errorf("river ui: %w", err)
	}
	return h, nil
}
