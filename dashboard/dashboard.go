package dashboard

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Config is what the dashboard is built with.
type Config struct {
	// BaseURL is the public URL (no trailing slash): links, the OIDC
	// redirect URL, and whether cookies are Secure (https).
	BaseURL string
	// SessionKey signs the session, login and CSRF cookies (32 bytes, e.g.
	// app.Config.Key("session")). Every process must have the same one.
	SessionKey []byte
	OIDC       OIDC
	Rooms      Rooms
	Accounts   Accounts
	// Hub fans room changes out to live pages; nil: a hub of its own (fed
	// by whoever calls its Publish).
	Hub *Hub
	Log *slog.Logger
	Now func() time.Time // nil: time.Now
}

// OIDC is the OpenID Connect provider humans sign in with.
type OIDC struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// HTTPClient talks to the provider; nil: a client with a 10 s timeout.
	HTTPClient *http.Client
}

// Dashboard serves the humans' pages. Build it with New, then Mount it.
type Dashboard struct {
	ctx      context.Context
	baseURL  string
	secure   bool
	sign     signer
	oidc     *oidcClient
	rooms    Rooms
	accounts Accounts
	hub      *Hub
	log      *slog.Logger
	now      func() time.Time
	views    *views
	csrf     fiber.Handler
}

// New builds the dashboard. ctx bounds its background work (the OIDC
// provider's key fetches, live streams): cancel it at shutdown.
func New(ctx context.Context, c Config) (*Dashboard, error) {
	if len(c.SessionKey) < 32 {
		return nil, errors.New("dashboard: the session key must be at least 32 bytes")
	}
	if c.Rooms == nil || c.Accounts == nil {
		return nil, errors.New("dashboard: Rooms and Accounts are required")
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Hub == nil {
		c.Hub = NewHub(c.Rooms.RoomAccounts, c.Log)
	}
	v, err := loadViews()
	if err != nil {
		return nil, err
	}
	d := &Dashboard{ctx: ctx, baseURL: strings.TrimSuffix(c.BaseURL, "/"), secure: strings.HasPrefix(c.BaseURL, "https://"),
		sign: signer{key: c.SessionKey}, rooms: c.Rooms, accounts: c.Accounts, hub: c.Hub, log: c.Log, now: c.Now, views: v}
	d.oidc = newOIDCClient(ctx, c.OIDC, d.baseURL+"/auth/callback")
	d.csrf = d.newCSRF()
	return d, nil
}

// Mount adds the dashboard's routes to a. Each route carries its own
// middleware (security headers, CSRF), so nothing leaks onto the other
// routes of a (the MCP endpoint, health probes).
func (d *Dashboard) Mount(a *fiber.App) {
	page := func(h fiber.Handler) []fiber.Handler { return []fiber.Handler{d.headers, d.csrf, h} }
	stream := func(h fiber.Handler) []fiber.Handler { return []fiber.Handler{d.headers, h} }

	a.Get("/static/:file", d.static)
	a.Get("/", page(d.roomsList)...)
	a.Get("/events", stream(d.roomsEvents)...)
	a.Get("/login", stream(d.authLogin)...)
	a.Get("/auth/callback", page(d.authCallback)...)
	a.Post("/logout", page(d.authLogout)...)
	a.Get("/signed-out", page(d.authSignedOut)...)
	a.Get("/rooms/:id", page(d.roomShow)...)
	a.Get("/rooms/:id/events", stream(d.roomEvents)...)
	a.Post("/rooms/:id/decide", page(d.roomDecide)...)
	a.Get("/c/:token", page(d.onetapShow)...)
	a.Post("/c/:token", page(d.onetapDecide)...)
	a.Get("/i/:code", page(d.inviteShow)...)
	a.Post("/i/:code", page(d.inviteAnswer)...)
	a.Get("/p/:token", page(d.seatShow)...)
	a.Post("/p/:token", page(d.seatAnswer)...)
	a.Get("/p/:token/events", stream(d.seatEvents)...)
	a.Get("/settings", page(d.settingsShow)...)
	a.Post("/settings/agents", page(d.settingsAgentCreate)...)
	a.Post("/settings/agents/:id/keys", page(d.settingsKeyIssue)...)
	a.Post("/settings/keys/:id/revoke", page(d.settingsKeyRevoke)...)
	a.Post("/settings/timezone", page(d.settingsTimezone)...)
}
