package dashboard

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/internal/ratelimit"
	"github.com/taasky/taasky/receipt"
)

// Config is what the dashboard is built with.
type Config struct {
	// BaseURL is the public URL (no trailing slash): links, the OIDC
	// redirect URL, and whether cookies are Secure (https).
	BaseURL string
	// SessionKey signs the session, login and CSRF cookies (32 bytes, e.g.
	// config.Config.Key("session")). Every process must have the same one.
	SessionKey []byte
	// PreviousSessionKey is SessionKey under SECRET_KEY_PREVIOUS during a
	// rotation of SECRET_KEY (nil: none): the cookies it signed still
	// open; none is signed with it.
	PreviousSessionKey []byte
	OIDC               OIDC
	Rooms              Rooms
	Accounts           Accounts
	// Notifications serves the notification settings, the delivery log and
	// /unsubscribe; nil: the settings say notifications are not set up here.
	Notifications Notifications
	// Webhooks serves an account's webhook endpoints; nil: not offered.
	Webhooks Webhooks
	// OAuth serves the consent screen (/oauth/authorize) and Settings'
	// agents connected with OAuth; nil: OAuth is not offered.
	OAuth OAuth
	// VAPIDPublicKey is the Web Push application server key (base64url)
	// browsers subscribe with; "": Web Push is not configured.
	VAPIDPublicKey string
	// MailFrom is the From of Taasky's mail (SMTP_FROM, or its default):
	// the organizer of a calendar entry downloaded, as of one mailed; "":
	// Taasky at BASE_URL's host.
	MailFrom string
	// JobsUI is served at JobsUIPath to signed-in operators only (the River
	// UI, built with that prefix); nil: not mounted.
	JobsUI http.Handler
	// Hub fans room changes out to live pages; nil: a hub of its own (fed
	// by whoever calls its Publish).
	Hub *Hub
	// RateLimit is a token bucket per client address, in this process, on
	// the pages a stranger reaches without signing in that take a secret
	// or start a login (Mount says which); the zero Limit: none.
	RateLimit ratelimit.Limit
	// TrustedProxies are the proxies in front of the service: a request
	// from one counts against the address it says it forwarded
	// (X-Forwarded-For); none: every request counts against the address
	// it came from.
	TrustedProxies []netip.Prefix
	// Receipts are the service's receipt keys: published at
	// /.well-known/jwks.json, and what /verify checks against; nil: no
	// receipts (the room page offers none, /verify is not mounted).
	Receipts *receipt.Keyring
	Log      *slog.Logger
	Now      func() time.Time // nil: time.Now
	// DeliveryLogDays is how many days the delivery log keeps a line
	// (RETAIN_DELIVERY_LOG_DAYS), which its page says; 0: kept for good
	// (the page says nothing).
	DeliveryLogDays int
	// OAuthGrantMax is how long an OAuth grant lasts from its consent
	// (OAUTH_GRANT_MAX_DAYS), which Settings says of each connection; 0:
	// nothing is said.
	OAuthGrantMax time.Duration
}

// OIDC is the OpenID Connect provider humans sign in with.
type OIDC struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// HTTPClient talks to the provider; nil: a client with a 10 s timeout.
	HTTPClient *http.Client
}

// JobsUIPath is where Config.JobsUI is served.
const JobsUIPath = "/admin/jobs"

// Dashboard serves the humans' pages. Build it with New, then Mount it.
type Dashboard struct {
	ctx      context.Context
	baseURL  string
	origin   string // baseURL's, as browsers write an Origin (originOf)
	secure   bool
	sign     signer
	oidc     *oidcClient
	rooms    Rooms
	accounts Accounts
	notify   Notifications
	hooks    Webhooks
	oauth    OAuth
	vapidKey string
	mailFrom string // Config.MailFrom
	jobsUI   http.Handler
	hub      *Hub
	log      *slog.Logger
	now      func() time.Time
	views    *views
	csrf     fiber.Handler
	// strangers are the buckets of Config.RateLimit, by client address
	// (nil: no limit); trusted is Config.TrustedProxies.
	strangers *ratelimit.Buckets[netip.Addr]
	// oneClick are the one-click POSTs' buckets, by client address
	// (oneClickLimit); nil: no limit.
	oneClick *ratelimit.Buckets[netip.Addr]
	trusted  []netip.Prefix
	receipts *receipt.Keyring
	// logDays: Config.DeliveryLogDays; grantMax: Config.OAuthGrantMax.
	logDays  int
	grantMax time.Duration
	// streams are the signed-in people's open live streams (live_cap.go).
	streams liveStreams
	// seatStreams are the open live streams of people's seats, by room
	// (live_cap.go).
	seatStreams liveStreams
	// downloads are the account exports and members' data being written
	// (one at a time per signed-in person: downloads.go).
	downloads oneAtATime
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
		c.Hub = NewHub(c.Rooms.RoomSeats, c.Log)
	}
	v, err := loadViews()
	if err != nil {
		return nil, err
	}
	d := &Dashboard{ctx: ctx, baseURL: strings.TrimSuffix(c.BaseURL, "/"), secure: strings.HasPrefix(c.BaseURL, "https://"),
		sign: signer{key: c.SessionKey, previous: c.PreviousSessionKey}, rooms: c.Rooms, accounts: c.Accounts, notify: c.Notifications, hooks: c.Webhooks, oauth: c.OAuth, vapidKey: c.VAPIDPublicKey, mailFrom: c.MailFrom, logDays: c.DeliveryLogDays, grantMax: c.OAuthGrantMax,
		jobsUI: c.JobsUI, hub: c.Hub, log: c.Log, now: c.Now, views: v}
	d.origin = originOf(d.baseURL)
	d.oidc = newOIDCClient(ctx, c.OIDC, d.baseURL+"/auth/callback", c.Now)
	d.csrf = d.newCSRF()
	d.strangers = ratelimit.New[netip.Addr](c.RateLimit, maxClients, c.Now)
	d.oneClick = ratelimit.New[netip.Addr](oneClickLimit(c.RateLimit), maxClients, c.Now)
	d.trusted = c.TrustedProxies
	d.receipts = c.Receipts
	return d, nil
}

// Mount adds the dashboard's routes to a. Each route carries its own
// middleware (security headers, CSRF), so nothing leaks onto the other
// routes of a (the MCP endpoint, health probes).
func (d *Dashboard) Mount(a *fiber.App) {
	page := func(h fiber.Handler) []fiber.Handler { return []fiber.Handler{d.headers, d.csrf, d.signedInReader, h} }
	stream := func(h fiber.Handler) []fiber.Handler { return []fiber.Handler{d.headers, h} }
	// A stranger's pages: no session needed, and each takes a secret (a
	// code, a token) or starts a login. They share one bucket per client
	// address (ratelimit.go), spent before the CSRF check and the handler,
	// so a refused flood costs neither. Signed-in pages and static files
	// are not limited.
	// A signed-in person reads them in their own language and zone
	// (signedInReader).
	strangerPage := func(h fiber.Handler) []fiber.Handler {
		return []fiber.Handler{d.headers, d.limitStrangers, d.csrf, d.signedInReader, h}
	}
	strangerStream := func(h fiber.Handler) []fiber.Handler { return []fiber.Handler{d.headers, d.limitStrangers, h} }

	a.Get("/static/:file", d.static)
	a.Get("/", page(d.roomsList)...)
	a.Get("/events", stream(d.roomsEvents)...)
	a.Get("/login", strangerStream(d.authLogin)...)
	a.Get("/auth/callback", strangerPage(d.authCallback)...)
	a.Post("/logout", page(d.authLogout)...)
	a.Get("/signed-out", page(d.authSignedOut)...)
	a.Get("/rooms/:id", page(d.roomShow)...)
	a.Get("/rooms/:id/events", stream(d.roomEvents)...)
	a.Post("/rooms/:id/decide", page(d.roomDecide)...)
	a.Post("/rooms/:id/cancel", page(d.roomCancel)...)
	a.Get("/c/:token", strangerPage(d.onetapShow)...)
	a.Post("/c/:token", strangerPage(d.onetapDecide)...)
	a.Get("/i/:code", strangerPage(d.inviteShow)...)
	a.Post("/i/:code", strangerPage(d.inviteAnswer)...)
	a.Get("/p/:token", strangerPage(d.seatShow)...)
	a.Post("/p/:token", strangerPage(d.seatAnswer)...)
	a.Get("/p/:token/events", strangerStream(d.seatEvents)...)
	a.Get("/p/:token/invite.ics", strangerPage(d.seatCalendarFile)...)
	a.Get("/settings", page(d.settingsShow)...)
	a.Post("/settings/agents", page(d.settingsAgentCreate)...)
	a.Post("/settings/agents/:id/keys", page(d.settingsKeyIssue)...)
	a.Post("/settings/keys/:id/revoke", page(d.settingsKeyRevoke)...)
	a.Post("/settings/timezone", page(d.settingsTimezone)...)
	a.Post("/settings/language", page(d.settingsLanguage)...)
	a.Post("/zone", strangerPage(d.zoneTell)...)
	a.Post("/settings/notifications", page(d.settingsNotifyPrefs)...)
	a.Post("/settings/push", page(d.settingsPushSubscribe)...)
	a.Post("/settings/push/remove", page(d.settingsPushRemove)...)
	a.Post("/settings/push/test", page(d.settingsPushTest)...)
	a.Post("/settings/sessions/end", page(d.settingsSessionEnd)...)
	a.Post("/settings/sessions/end-others", page(d.settingsSessionsEnd)...)
	a.Get("/settings/deliveries", page(d.settingsDeliveries)...)
	a.Get("/signup", strangerPage(d.signupShow)...)
	a.Post("/signup", strangerPage(d.signupCreate)...)
	a.Get("/accounts/:slug/start", page(d.accountStart)...)
	a.Get("/accounts/:slug/members", page(d.membersShow)...)
	a.Post("/accounts/:slug/invitations", page(d.invitationSend)...)
	a.Post("/accounts/:slug/invitations/:id/resend", page(d.invitationResend)...)
	a.Post("/accounts/:slug/invitations/:id/revoke", page(d.invitationRevoke)...)
	a.Post("/accounts/:slug/members/:user/role", page(d.memberRole)...)
	a.Post("/accounts/:slug/members/:user/remove", page(d.memberRemove)...)
	a.Post("/accounts/:slug/leave", page(d.memberLeave)...)
	a.Get("/accounts/:slug/settings", page(d.accountSettings)...)
	a.Post("/accounts/:slug/rename", page(d.accountRename)...)
	a.Post("/accounts/:slug/export", page(d.accountExport)...)
	a.Post("/accounts/:slug/delete", page(d.accountDelete)...)
	a.Get("/account-deleted", page(d.accountDeleted)...)
	a.Post("/settings/profile/delete", page(d.settingsProfileDelete)...)
	// "Download my data" reads every room its human answers for: it
	// spends the strangers' per-address bucket too.
	a.Post("/settings/my-data", strangerPage(d.settingsMyData)...)
	a.Post("/p/:token/my-data", strangerPage(d.seatMyData)...)
	a.Get("/profile-deleted", page(d.profileDeleted)...)
	a.Get("/accounts/:slug/webhooks", page(d.webhooksShow)...)
	a.Post("/accounts/:slug/webhooks", page(d.webhookCreate)...)
	a.Get("/accounts/:slug/webhooks/:id", page(d.webhookLog)...)
	a.Post("/accounts/:slug/webhooks/:id/rotate", page(d.webhookRotate)...)
	a.Post("/accounts/:slug/webhooks/:id/enable", page(d.webhookEnable)...)
	a.Post("/accounts/:slug/webhooks/:id/delete", page(d.webhookDelete)...)
	a.Post("/accounts/:slug/webhooks/messages/:msg/again", page(d.webhookAgain)...)
	a.Get("/join/:token", strangerPage(d.joinShow)...)
	a.Post("/join/:token", strangerPage(d.joinAccept)...)
	a.Post("/settings/agents/:id/disconnect", page(d.settingsAgentDisconnect)...)
	a.Get("/oauth/authorize", strangerPage(d.oauthConsentShow)...)
	a.Post("/oauth/authorize", page(d.oauthConsentAnswer)...)
	a.Get("/sw.js", d.serviceWorker)
	if d.receipts != nil {
		a.Get("/.well-known/jwks.json", d.jwks)
		a.Get("/rooms/:id/receipt", page(d.roomReceiptShow)...)
		a.Get("/rooms/:id/receipt.jws", page(d.roomReceiptFile)...)
		a.Get("/p/:token/receipt.jws", strangerPage(d.seatReceiptFile)...)
		a.Get("/verify", strangerPage(d.verifyShow)...)
		a.Post("/verify", strangerPage(d.verifyCheck)...)
	}
	a.Get("/unsubscribe/:token", strangerPage(d.unsubscribeShow)...)
	// No CSRF check: RFC 8058 one-click unsubscribes are POSTed by mail
	// clients, with no cookie and no form token. The token in the path is
	// the capability, and all it can do is turn email notices off. These
	// POSTs have a larger bucket of their own (limitOneClick): a mail
	// provider's few servers send them for many people.
	a.Post("/unsubscribe/:token", d.headers, d.limitOneClick, d.unsubscribeConfirm)
	a.Get("/refuse/:token", strangerPage(d.refuseShow)...)
	a.Post("/refuse/:token", d.headers, d.limitOneClick, d.refuseConfirm)
	if d.jobsUI != nil {
		jobs := []fiber.Handler{d.operatorsOnly, fiberhttp.Handler(d.jobsUI)}
		a.All(JobsUIPath, jobs...)
		a.All(JobsUIPath+"/*", jobs...)
	}
	a.Use(d.notFound) // last: what no route took
}
