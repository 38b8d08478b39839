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
