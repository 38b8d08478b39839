// Package oauthserver is Taasky's authorization server for the agents'
// door (MCP authorization, OAuth 2.1), and the resource side's check of
// the access tokens it issues.
//
// The OAuth machinery is ory/fosite: the authorization code grant with
// PKCE (S256 only), rotating refresh tokens with reuse detection, code
// reuse revoking what the code issued, revocation (RFC 7009), HMAC tokens
// stored by signature. The documents are go-sdk's oauthex types (RFC 8414,
// RFC 9728, RFC 7591). This package holds only Taasky's glue: its clients
// (Dynamic Client Registration, Client ID Metadata Documents fetched with
// care), the resource indicator (RFC 8707) bound into each grant, the
// issuer in the authorization response (RFC 9207), and fosite's storage
// over app.OAuth.
//
// It must not hold SQL (app does), render a page a person reads (the
// dashboard shows the consent screen, through Consent's methods), or log a
// token, a code or a secret.
package oauthserver
