package dashboard

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// settingsData is the settings page.
type settingsData struct {
	Accounts []accountSettings
	NewKey   *newKey         // a key just issued: shown this once
	Notify   *notifySettings // nil: notifications are not set up in this process
	Error    string
	Notice   string
	// AgentName: the name a refused "create agent" was sent with, kept in
	// its account's field, which the error then describes.
	AgentName *typedName
	// ProfileError is why the profile was not deleted (its section says it).
	ProfileError string
	// Sessions are the browsers the person is signed in with, the last
	// used first.
	Sessions []sessionLine
}

// sessionLine is one of the person's sessions in words.
type sessionLine struct {
	ID                   int64
	Device               string
	SignedIn, LastActive string
	This                 bool // the session of the browser reading the page
}

type accountSettings struct {
	M      app.Membership
	MCPURL string
	Agents []agentSettings // those that can act (or still have a key), with their keys
	// Retired: the newest agents that can no longer act, listed compactly
	// after them (app.RetiredAgentsShown); MoreRetired: how many older
	// ones are not listed.
	Retired     []retiredSettings
	MoreRetired int
}

type retiredSettings struct {
	app.RetiredAgent
	Manages bool // the viewer may give it a new key (unless OAuth)
}

type agentSettings struct {
	A    app.Agent
	Keys []app.AgentKey // unrevoked, and the newest revoked (app.RevokedKeysShown)
	// OlderRevoked: it has older revoked keys than those, not listed.
	OlderRevoked bool
	Manages      bool // the viewer may issue and revoke its keys
	// OAuth: connected with OAuth (by a client, not with keys); nil: keys.
	OAuth *app.OAuthConnection
	// GrantEnds: when the OAuth grant of the latest consent ends (the
	// person must consent again); nil: keys, disconnected, or not known.
	GrantEnds *time.Time
}

type typedName struct{ Account, Name string }

type newKey struct {
	Account, Agent, Key, MCPURL string
}

// settingsNotices are the words of what a settings form just did, by
// the ?done= it redirects with.
var settingsNotices = map[string]locale.Key{"revoked": "settings.done.revoked",
	"zone":           "settings.done.zone",
	"language":       "settings.done.language",
	"notify":         "settings.done.notify",
	"push-on":        "settings.done.push_on",
	"push-off":       "settings.done.push_off",
	"push-test":      "settings.done.push_test",
	"disconnected":   "settings.done.disconnected",
	"push-nothing":   "settings.done.push_nothing",
	"session-ended":  "sessions19_settings.done_one",
	"sessions-ended": "sessions19_settings.done_others"}

// settingsShow lists the user's accounts with their agents and keys, and
// the time zone their cards are shown in.
func (d *Dashboard) settingsShow(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	return d.settingsPage(c, v, settingsData{Notice: d.doneNotice(c, v, settingsNotices)})
}

// doneNotice is the words of what a form just did, from the ?done= it
// redirected with ("" for none).
func (d *Dashboard) doneNotice(c *fiber.Ctx, v *viewer, notices map[string]locale.Key) string {
	if k, ok := notices[c.Query("done")]; ok {
		return d.words(c, v).T(k)
	}
	return ""
}

func (d *Dashboard) settingsPage(c *fiber.Ctx, v *viewer, data settingsData) error {
	ms, err := d.accounts.Memberships(c.UserContext(), v.user.ID)
	if err != nil {
		return d.fail(c, err)
	}
	for _, m := range ms {
		as := accountSettings{M: m, MCPURL: d.mcpURL(m.AccountSlug)}
		agents, retired, more, err := d.accounts.SettingsAgents(c.UserContext(), m.AccountSlug)
		if err != nil {
			return d.fail(c, err)
		}
		as.MoreRetired = more
		for _, r := range retired {
			as.Retired = append(as.Retired, retiredSettings{RetiredAgent: r, Manages: manages(m, r.Agent, v.user.ID)})
		}
		connected, err := d.oauthConnections(c, m.AccountSlug)
		if err != nil {
			return d.fail(c, err)
		}
		for _, a := range agents {
			keys, older, err := d.accounts.ShownAgentKeys(c.UserContext(), m.AccountSlug, a.ID)
			if err != nil {
				return d.fail(c, err)
			}
			g := agentSettings{A: a, Keys: keys, OlderRevoked: older, Manages: manages(m, a, v.user.ID)}
			if x, ok := connected[a.ID]; ok {
				g.OAuth = &x
				if x.DisconnectedAt == nil && d.grantMax > 0 {
					end := x.ConnectedAt.Add(d.grantMax)
					g.GrantEnds = &end
				}
			}
			as.Agents = append(as.Agents, g)
		}
		data.Accounts = append(data.Accounts, as)
	}
	if data.Notify, err = d.notifySettings(c, v); err != nil {
		return d.fail(c, err)
	}
	if data.Sessions, err = d.sessionLines(c, v); err != nil {
		return d.fail(c, err)
	}
	return d.renderPage(c, "settings", &page{Title: d.words(c, v).T("layout.settings"), Data: data}, v)
}

func (d *Dashboard) mcpURL(slug string) string { return d.baseURL + "/mcp/" + slug }

// manages asks app.May whether the member may issue and revoke the
// agent's keys (owners and admins: every agent; a member: their own).
func manages(m app.Membership, a app.Agent, userID int64) bool {
	return app.May(m.Role, app.ActManageAgent, app.WhoseOf(a.OwnerUserID, userID))
}

// membership returns the user's membership in the account with slug.
func (d *Dashboard) membership(c *fiber.Ctx, v *viewer, slug string) (app.Membership, error) {
	if slug == "" {
		return app.Membership{}, refusal(app.ErrInvalid, "web14_account_required") // the form's hidden field, left out
	}
	ms, err := d.accounts.Memberships(c.UserContext(), v.user.ID)
	if err != nil {
		return app.Membership{}, err
	}
	for _, m := range ms {
		if m.AccountSlug == slug {
			return m, nil
		}
	}
	return app.Membership{}, refusal(app.ErrNotFound, "error.not_member", slug)
}

// sessionLines are the person's sessions in their words and zone, this
// browser's marked.
func (d *Dashboard) sessionLines(c *fiber.Ctx, v *viewer) ([]sessionLine, error) {
	ss, err := d.accounts.Sessions(c.UserContext(), v.user.ID)
	if err != nil {
		return nil, err
	}
	var this int64
	if in := d.thisSession(c); in != nil {
		this = in.Session.ID
	}
	w, loc := d.words(c, v), v.loc()
	out := make([]sessionLine, len(ss))
	for i, s := range ss {
		out[i] = sessionLine{ID: s.ID, Device: deviceWords(w, s.Device), SignedIn: w.Moment(s.CreatedAt, loc),
			LastActive: w.Moment(s.LastSeenAt, loc), This: s.ID == this}
	}
	return out, nil
}

// deviceWords names a session's browser and system in w's words.
func deviceWords(w *locale.Printer, dev app.SessionDevice) string {
	browser := dev.Browser
	if browser == "" {
		browser = w.T("settings.a_browser")
	}
	if dev.Platform == "" {
		return browser
	}
	return w.T("sessions19_settings.device", browser, dev.Platform)
}
