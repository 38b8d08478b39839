package oauthserver

import (
	"encoding/json"
	"net/http/httptest"
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
