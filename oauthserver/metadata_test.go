package oauthserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// TestServerMetadataHasNoEmptyJWKSURI: the authorization server's metadata
// (RFC 8414) leaves jwks_uri out rather than serving "" (no URI): Taasky
// has no keys for OAuth. The other members are still there.
func TestServerMetadataHasNoEmptyJWKSURI(t *testing.T) {
	t.Parallel()
	s, err := New(Config{BaseURL: "https://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(nil), Accounts: app.NewAccounts(nil)})
	if err != nil {
		t.Fatal(err)
	}
	web := fiber.New()
	s.Mount(web)
	resp, err := web.Test(httptest.NewRequest("GET", "/.well-known/oauth-authorization-server", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d: %v", resp.StatusCode, err)
	}
	if v, ok := doc["jwks_uri"]; ok {
		t.Errorf("jwks_uri = %q: a member with no URI", v)
	}
	for k, want := range map[string]string{"issuer": "https://taasky.test", "token_endpoint": "https://taasky.test/oauth/token",
		"registration_endpoint": "https://taasky.test/oauth/register", "revocation_endpoint": "https://taasky.test/oauth/revoke"} {
		if doc[k] != want {
			t.Errorf("%s = %v, want %s", k, doc[k], want)
		}
	}
	if doc["client_id_metadata_document_supported"] != true {
		t.Errorf("client_id_metadata_document_supported = %v", doc["client_id_metadata_document_supported"])
	}
}

// TestMetadataOfAnIssuerWithAPath: with BASE_URL https://host/taasky (a
// proxy that strips /taasky), clients look for the authorization server's
// metadata where RFC 8414 §3.1 puts an issuer with a path, the well-known
// segment before the path (the TypeScript SDK tries that, then OpenID
// Connect's, never {issuer}/.well-known/oauth-authorization-server); and
// for a resource's, where RFC 9728 §3.1 puts it, beside the URL the 401
// names. Both are the same documents as at the root.
func TestMetadataOfAnIssuerWithAPath(t *testing.T) {
	t.Parallel()
	s, err := New(Config{BaseURL: "https://host.test/taasky", Secret: make([]byte, 32), State: app.NewOAuth(nil), Accounts: app.NewAccounts(nil)})
	if err != nil {
		t.Fatal(err)
	}
	web := fiber.New()
	s.Mount(web)
	get := func(path string) (int, map[string]any) {
		t.Helper()
		resp, err := web.Test(httptest.NewRequest("GET", path, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&doc)
		return resp.StatusCode, doc
	}
	for _, path := range []string{"/.well-known/oauth-authorization-server/taasky", "/.well-known/oauth-authorization-server"} {
		if st, doc := get(path); st != 200 || doc["issuer"] != "https://host.test/taasky" || doc["token_endpoint"] != "https://host.test/taasky/oauth/token" {
			t.Errorf("GET %s: %d %v, want the metadata of issuer https://host.test/taasky", path, st, doc)
		}
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/taasky/mcp", "/.well-known/oauth-protected-resource/mcp"} {
		if st, doc := get(path); st != 200 || doc["resource"] != "https://host.test/taasky/mcp" {
			t.Errorf("GET %s: %d %v, want the metadata of https://host.test/taasky/mcp", path, st, doc)
		}
	}
	if st, _ := get("/.well-known/oauth-authorization-server/other"); st == 200 {
		t.Errorf("the metadata of another issuer's path: %d, want none", st)
	}
}

// TestMetadataSaysWhatTaaskyDoes: the authorization server's metadata
// (RFC 8414, as MCP authorization asks) lists exactly what Taasky does:
// its endpoints, the code flow answered in the query, PKCE S256 only,
// public clients (none) at the token and revocation endpoints, the code
// and refresh grants, negotiate and offline_access, iss in the response,
// Client ID Metadata Documents; readable from any origin and cached an
// hour. A resource's metadata (RFC 9728) names the resource, Taasky as
// its authorization server, negotiate alone (offline_access is the
// authorization server's only), the bearer in the header, and the
// account; an account that does not exist has none (404), and a
// database that does not answer is a 503, not a 404.
func TestMetadataSaysWhatTaaskyDoes(t *testing.T) {
	t.Parallel()
	e := newAcme(t)
	web := fiber.New()
	e.s.Mount(web)
	get := func(path string) (*http.Response, map[string]any) {
		t.Helper()
		resp, err := web.Test(httptest.NewRequest("GET", path, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&doc)
		return resp, doc
	}
	same := func(got any, want ...string) bool {
		list, _ := got.([]any)
		if len(list) != len(want) {
			return false
		}
		for i := range want {
			if list[i] != want[i] {
				return false
			}
		}
		return true
	}
	resp, doc := get("/.well-known/oauth-authorization-server")
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Cache-Control") != "public, max-age=3600" {
		t.Errorf("server metadata: %d, Access-Control-Allow-Origin %q, Cache-Control %q", resp.StatusCode,
			resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Get("Cache-Control"))
	}
	for k, want := range map[string]string{"issuer": "http://taasky.test", "authorization_endpoint": "http://taasky.test/oauth/authorize",
		"token_endpoint": "http://taasky.test/oauth/token", "registration_endpoint": "http://taasky.test/oauth/register",
		"revocation_endpoint": "http://taasky.test/oauth/revoke"} {
		if doc[k] != want {
			t.Errorf("%s = %v, want %s", k, doc[k], want)
		}
	}
	for k, want := range map[string][]string{"scopes_supported": {"negotiate", "offline_access"}, "response_types_supported": {"code"},
		"response_modes_supported": {"query"}, "grant_types_supported": {"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported": {"none"}, "revocation_endpoint_auth_methods_supported": {"none"},
		"code_challenge_methods_supported": {"S256"}} {
		if !same(doc[k], want...) {
			t.Errorf("%s = %v, want %v", k, doc[k], want)
		}
	}
	for _, k := range []string{"client_id_metadata_document_supported", "authorization_response_iss_parameter_supported"} {
		if doc[k] != true {
			t.Errorf("%s = %v, want true", k, doc[k])
		}
	}

	for path, want := range map[string]struct{ resource, name string }{
		"/.well-known/oauth-protected-resource/mcp":      {"http://taasky.test/mcp", "Taasky"},
		"/.well-known/oauth-protected-resource/mcp/acme": {"http://taasky.test/mcp/acme", "Taasky (acme)"},
	} {
		resp, doc := get(path)
		if resp.StatusCode != 200 || doc["resource"] != want.resource || doc["resource_name"] != want.name ||
			!same(doc["authorization_servers"], "http://taasky.test") || !same(doc["scopes_supported"], "negotiate") ||
			!same(doc["bearer_methods_supported"], "header") {
			t.Errorf("GET %s: %d %v, want the metadata of %s", path, resp.StatusCode, doc, want.resource)
		}
	}
	if resp, doc := get("/.well-known/oauth-protected-resource/mcp/globex"); resp.StatusCode != 404 || doc["error"] != "not_found" ||
		doc["error_description"] != "no such account: its MCP URL is http://taasky.test/mcp/{account}, or use http://taasky.test/mcp and choose the account when you consent" ||
		resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("the metadata of an account that does not exist: %d %v %v, want 404 not_found naming the URLs, readable from any origin", resp.StatusCode, resp.Header, doc)
	}
	// HEAD is GET without the body (RFC 9110 §9.3.2); go-sdk's handler
	// alone answered it 405.
	for path, status := range map[string]int{"/.well-known/oauth-protected-resource/mcp/acme": 200, "/.well-known/oauth-protected-resource/mcp": 200,
		"/.well-known/oauth-protected-resource/mcp/globex": 404} {
		resp, err := web.Test(httptest.NewRequest("HEAD", path, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status || len(body) != 0 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("HEAD %s: %d %q, %d bytes, want %d, JSON's headers and no body", path, resp.StatusCode, resp.Header.Get("Content-Type"), len(body), status)
		}
	}
	e.pool.Close()
	if resp, doc := get("/.well-known/oauth-protected-resource/mcp/acme"); resp.StatusCode != 503 || doc["error"] != "server_error" {
		t.Errorf("the metadata of an account while the database does not answer: %d %v, want 503", resp.StatusCode, doc)
	}
}
