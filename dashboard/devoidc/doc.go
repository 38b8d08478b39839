// Package devoidc is an OpenID Connect provider for development and tests:
// zitadel/oidc's provider (discovery, authorization code with PKCE S256,
// signed ID tokens, userinfo) over an in-memory storage, with a login page
// that signs in any email address typed or picked from a list, verified.
//
// It is a real provider, so the dashboard signs in through it exactly as
// through Google or Keycloak; but it trusts whoever is at the keyboard, so
// it must never serve anything but `taasky dev` and tests.
package devoidc
