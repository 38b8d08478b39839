package dashboard

import (
	"crypto/subtle"
	"fmt"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/oauth2"

	"github.com/taasky/taasky/app"
)

// authCallback finishes a sign-in: the state must be the one this browser
// started with (before anything else, the provider's errors too), the code is exchanged with the PKCE verifier, the ID token
// verified (issuer, audience, expiry, signature) and its nonce checked.
// The identity is then linked to its user (app.Accounts.LoginOIDC) and a
// signed session cookie set.
func (d *Dashboard) authCallback(c *fiber.Ctx) error {
	var ls loginState
	if !d.sign.open("login", d.cookie(c, loginCookie), &ls) || d.now().Unix() >= ls.Expires {
		d.clearCookie(c, loginCookie)
		return d.showErrorT(c, fiber.StatusBadRequest, "error.sign_in_late")
	}
	// The state first, errors included (the provider sends it back with
	// them, RFC 6749 4.1.2.1): a link that is not this browser's sign-in
	// neither shows its words as the provider's nor ends the sign-in in
	// progress, whose cookie stays for the real answer.
	if subtle.ConstantTimeCompare([]byte(c.Query("state")), []byte(ls.State)) != 1 {
		return d.showErrorT(c, fiber.StatusBadRequest, "error.sign_in_state")
	}
	d.clearCookie(c, loginCookie)
	if e := c.Query("error"); e != "" {
		if desc := c.Query("error_description"); desc != "" {
			return d.showErrorT(c, fiber.StatusUnauthorized, "error.sign_in_refused_why", e, desc)
		}
		return d.showErrorT(c, fiber.StatusUnauthorized, "error.sign_in_refused", e)
	}
	id, err := d.identify(c, ls)
	if err != nil {
		d.log.Warn("sign-in failed", "err", err)
		return d.showErrorT(c, fiber.StatusUnauthorized, "error.sign_in_unverified")
	}
	user, err := d.accounts.LoginOIDC(c.UserContext(), id)
	if err != nil {
		return d.fail(c, err)
	}
	d.startSession(c, user)
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
