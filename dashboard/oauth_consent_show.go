package dashboard

import (
	"errors"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/ratelimit"
)

// consentData is the consent screen.
type consentData struct {
	A       app.OAuthAuthorization
	Params  []consentParam // the authorization request, carried by the form
	Refusal string         // A.Refusal in the reader's words ("": none)
}

type consentParam struct{ Name, Value string }

// oauthConsentShow is the authorize endpoint's page: after the person signs
// in (as for any page), which client asks, where its answer goes, for which
// account, and what it may do; approve or decline.
func (d *Dashboard) oauthConsentShow(c *fiber.Ctx) error {
	if d.oauth == nil {
		return d.showErrorT(c, fiber.StatusNotFound, "error.no_oauth")
	}
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	params := authorizeParams(c)
	auth, redirect, err := d.oauth.ReadAuthorization(c.UserContext(), params, v.user.ID)
	if err != nil {
		return d.failConsent(c, v, err)
	}
	if redirect != "" {
		return c.Redirect(redirect, fiber.StatusSeeOther)
	}
	return d.consentPage(c, v, auth, params)
}

func (d *Dashboard) consentPage(c *fiber.Ctx, v *viewer, auth app.OAuthAuthorization, params url.Values) error {
	data := consentData{A: auth}
	if auth.Refusal != nil {
		data.Refusal = d.say(c, v, auth.Refusal)
	}
	for k, vs := range params {
		for _, val := range vs {
			data.Params = append(data.Params, consentParam{k, val})
		}
	}
	c.Set("Content-Security-Policy", consentPolicy(auth.RedirectURI, auth.Client.LogoURI))
	return d.renderPage(c, "consent", &page{Title: d.words(c, v).T("consent.title", auth.Client.Name), Data: data}, v)
}

// failConsent answers a consent screen's error: past the person's limit on
// the metadata documents fetched for them (oauthserver.Config.FetchLimit),
// 429 with Retry-After and a page saying when to try again, as the other
// limits answer; anything else as every page does.
func (d *Dashboard) failConsent(c *fiber.Ctx, v *viewer, err error) error {
	limited, ok := errors.AsType[*ratelimit.Exceeded](err)
	if !ok {
		return d.fail(c, err)
	}
	secs := ratelimit.RetryAfter(limited.Wait)
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	c.Status(fiber.StatusTooManyRequests)
	w := d.words(c, v)
	return d.renderPage(c, "error", &page{Title: w.T("error.too_many"), Data: w.T("oac15_metadata_fetches", secs)}, v)
}
