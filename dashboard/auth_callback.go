package dashboard

import (
	"crypto/subtle"
	"fmt"
	"slices"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/oauth2"

	"github.com/taasky/taasky/app"
)

// authCallback finishes a sign-in: the state must be one of those this
// browser started with (loginsOf; before anything else, the provider's
// errors too), the code is exchanged with the PKCE verifier, the ID token
// verified (issuer, audience, expiry, signature) and its nonce checked.
// The identity is then linked to its user (app.Accounts.LoginOIDC), a
// session of theirs started for this browser and its token set in a
// signed cookie.
func (d *Dashboard) authCallback(c *fiber.Ctx) error {
	// The state first, errors included (the provider sends it back with
	// them, RFC 6749 4.1.2.1): a link that is not one of this browser's
	// sign-ins neither shows its words as the provider's nor ends the
	// sign-ins in progress, whose cookie stays for the real answers.
	logins := d.loginsOf(c)
	match, live := -1, 0
	for i, l := range logins {
		if subtle.ConstantTimeCompare([]byte(c.Query("state")), []byte(l.State)) == 1 {
			match = i
		}
		if d.now().Unix() < l.Expires {
			live++
		}
	}
	switch {
	case live == 0:
		d.clearCookie(c, loginCookie)
		return d.showErrorT(c, fiber.StatusBadRequest, "error.sign_in_late")
	case match < 0:
		return d.showErrorT(c, fiber.StatusBadRequest, "error.sign_in_state")
	}
	ls := logins[match]
	d.keepLogins(c, slices.DeleteFunc(logins, func(l loginState) bool { return l.State == ls.State || d.now().Unix() >= l.Expires }))
	if d.now().Unix() >= ls.Expires {
		return d.showErrorT(c, fiber.StatusBadRequest, "error.sign_in_late")
	}
	if e := c.Query("error"); e != "" {
		if desc := c.Query("error_description"); desc != "" {
			return d.showErrorT(c, fiber.StatusUnauthorized, "error.sign_in_refused_why", e, desc)
		}
		return d.showErrorT(c, fiber.StatusUnauthorized, "error.sign_in_refused", e)
	}
	id, err := d.identify(c, ls)
	d.oidc.seen(err) // /login asks the provider before sending anyone there again (oidcClient.away)
	if err != nil && providerAway(err) {
		d.log.WarnContext(c.UserContext(), "sign-in: the identity provider did not answer", "err", err)
		c.Set(fiber.HeaderRetryAfter, providerRetryAfter)
		return d.showErrorT(c, fiber.StatusServiceUnavailable, "error.sign_in_unavailable")
	}
	if err != nil {
		d.log.WarnContext(c.UserContext(), "sign-in failed", "err", err)
		return d.showErrorT(c, fiber.StatusUnauthorized, "error.sign_in_unverified")
	}
	user, err := d.accounts.LoginOIDC(c.UserContext(), id)
	if err != nil {
		return d.fail(c, err)
	}
	if err := d.startSession(c, user); err != nil {
		return d.fail(c, err)
	}
	return c.Redirect(safeNext(ls.Next), fiber.StatusSeeOther)
}

// identify exchanges the code and verifies the ID token; the email comes
// from the token or, if the provider keeps it there, from userinfo.
func (d *Dashboard) identify(c *fiber.Ctx, ls loginState) (app.OIDCIdentity, error) {
	provider, oauth, verifier, err := d.oidc.get()
	if err != nil {
		return app.OIDCIdentity{}, err
	}
	ctx := d.oidc.exchangeContext(c.UserContext())
	tok, err := oauth.Exchange(ctx, c.Query("code"), oauth2.VerifierOption(ls.Verifier))
	if err != nil {
		return app.OIDCIdentity{}, fmt.Errorf("exchange: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return app.OIDCIdentity{}, fmt.Errorf("no id_token in the token response")
	}
	idt, err := verifier.Verify(ctx, raw)
	if err != nil {
		return app.OIDCIdentity{}, fmt.Errorf("verify: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(ls.Nonce)) != 1 {
		return app.OIDCIdentity{}, fmt.Errorf("nonce mismatch")
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
		Name          string `json:"name"`
		Locale        string `json:"locale"`
		ZoneInfo      string `json:"zoneinfo"`
	}
	if err := idt.Claims(&claims); err != nil {
		return app.OIDCIdentity{}, fmt.Errorf("claims: %w", err)
	}
	id := app.OIDCIdentity{Issuer: idt.Issuer, Subject: idt.Subject, Email: claims.Email, EmailVerified: claims.EmailVerified,
		Name: claims.Name, Locale: claims.Locale, ZoneInfo: claims.ZoneInfo}
	if id.Email == "" {
		ui, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return app.OIDCIdentity{}, fmt.Errorf("userinfo: %w", err)
		}
		if ui.Subject != idt.Subject {
			return app.OIDCIdentity{}, fmt.Errorf("userinfo is for another subject")
		}
		id.Email, id.EmailVerified = ui.Email, ui.EmailVerified
	}
	return id, nil
}
