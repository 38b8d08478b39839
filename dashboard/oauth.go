package dashboard

import (
	"context"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// OAuth is what the consent screen and Settings need of the authorization
// server (oauthserver.Server) and of the agents connected with it
// (app.OAuth). Each authorize call checks the whole request again, so the
// consent form carries nothing the server trusts: a redirect is where to
// send the browser (the client's answer or an error it is told), an error
// is shown to the person.
type OAuth interface {
	ReadAuthorization(ctx context.Context, params url.Values, userID int64) (app.OAuthAuthorization, string, error)
	Approve(ctx context.Context, params url.Values, userID int64, account string) (string, error)
	Decline(ctx context.Context, params url.Values, userID int64) (string, error)
	Connections(ctx context.Context, accountSlug string) ([]app.OAuthConnection, error)
	Disconnect(ctx context.Context, accountSlug string, agentID int64) error
}

// consentFields are the consent form's own fields: everything else it
// posts is the authorization request, passed back as it came.
var consentFields = map[string]bool{csrfField: true, "decision": true, "account": true}

// authorizeParams are the request's authorization parameters: the query
// of a GET, the form's fields of the consent's POST; never the form's own
// fields, which only the person sets. (A client's link carrying
// decision=approve would otherwise come back as a hidden field before the
// buttons, and a click on Decline would connect it.)
func authorizeParams(c *fiber.Ctx) url.Values {
	params := url.Values{}
	args := c.Context().PostArgs()
	if c.Method() == fiber.MethodGet {
		args = c.Context().QueryArgs()
	}
	args.VisitAll(func(k, v []byte) {
		if !consentFields[string(k)] {
			params.Add(string(k), string(v))
		}
	})
	return params
}

// formActionFor lets the consent form's answer redirect to the client:
// browsers hold a form's redirects to its page's form-action.
func formActionFor(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil || u.Scheme == "" {
		return "'self'"
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return "'self' " + u.Scheme + "://" + u.Host
	}
	return "'self' " + u.Scheme + ":"
}

func consentPolicy(redirectURI, logo string) string {
	img := "'self' data:"
	if u, err := url.Parse(logo); err == nil && u.Scheme == "https" && u.Host != "" {
		img += " https://" + u.Host
	}
	return strings.NewReplacer("img-src 'self' data:", "img-src "+img,
		"form-action 'self'", "form-action "+formActionFor(redirectURI)).Replace(contentSecurityPolicy)
}
