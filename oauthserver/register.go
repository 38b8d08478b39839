package oauthserver

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"reflect"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/ratelimit"
)

// registrationTooLarge refuses a registration past metadataMaxBytes.
const registrationTooLarge = "the registration must be a JSON object of at most 16 KiB"

// BodyRefusal is the OAuth error a request to path is told when its body
// was refused before the endpoint ran (past the limit of every request,
// which the server enforces first), where the endpoint's own limit is
// smaller and has words of its own: a registration is told its 16 KiB
// whatever its size, not a limit it could never reach. ok is false for
// every other path.
func BodyRefusal(path string) (code, description string, ok bool) {
	if path == "/oauth/register" {
		return "invalid_client_metadata", registrationTooLarge, true
	}
	return "", "", false
}

// registerClient is Dynamic Client Registration (RFC 7591), for clients
// without a Client ID Metadata Document. Every client is registered
// public (token_endpoint_auth_method none, PKCE): a client that asked for
// a secret is told so in the answer, as RFC 7591 §3.2.1 allows.
func (s *Server) registerClient(w http.ResponseWriter, r *http.Request) {
	cors(w)
	// The client's address, as the dashboard's limits count it (behind a
	// trusted proxy, X-Forwarded-For's; an IPv6 client as its /64): the
	// connection's alone would be the proxy's, shared by every assistant.
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	var fwd [][]byte
	for _, h := range r.Header.Values("X-Forwarded-For") {
		fwd = append(fwd, []byte(h))
	}
	key := r.RemoteAddr
	if err == nil {
		key = ratelimit.ClientAddr(peer.Addr(), fwd, s.trusted).String()
	}
	if ok, wait := s.register.Take(key); !ok {
		s.refused.Refused("oauth_register", "too_many_requests", "", slog.LevelWarn, "oauth registrations refused: too many from one address", "component", "oauth")
		w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfter(wait)))
		writeJSONError(w, http.StatusTooManyRequests, "too_many_requests", "too many client registrations from this address; retry after "+strconv.Itoa(ratelimit.RetryAfter(wait))+" s")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, metadataMaxBytes+1))
	if err != nil || len(body) > metadataMaxBytes {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", registrationTooLarge)
		return
	}
	// jwks is a JSON object (RFC 7591 §2), which go-sdk's type reads as a
	// string: Taasky ignores it (public clients only), so it is read aside
	// rather than refusing valid metadata.
	var reg struct {
		oauthex.ClientRegistrationMetadata
		JWKS json.RawMessage `json:"jwks,omitempty"`
	}
	if err := json.Unmarshal(body, &reg); err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", describeJSONError(err))
		return
	}
	m := reg.ClientRegistrationMetadata
	uris, err := checkRedirectURIs(m.RedirectURIs)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris: "+err.Error())
		return
	}
	name, err := clientName(m.ClientName, "MCP client")
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", "client_name: "+err.Error())
		return
	}
	if err := checkGrants(m.GrantTypes, nil); err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", "grant_types: "+err.Error())
		return
	}
	if err := checkGrants(nil, m.ResponseTypes); err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", "response_types: "+err.Error())
		return
	}
	for _, f := range [][2]string{{"logo_uri", m.LogoURI}, {"client_uri", m.ClientURI}} {
		if !httpsOrEmpty(f[1]) {
			writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", f[0]+": must be an https URL (got "+strconv.Quote(f[1])+")")
			return
		}
	}
	for _, sc := range strings.Fields(m.Scope) {
		if sc != Scope && sc != "offline_access" {
			writeJSONError(w, http.StatusBadRequest, "invalid_client_metadata", "scope: Taasky offers "+Scope+" (got "+strconv.Quote(sc)+")")
			return
		}
	}
	id := make([]byte, 18)
	_, _ = rand.Read(id)
	c, err := s.clients.state.SaveClient(r.Context(), app.OAuthClient{ID: "tsc_" + base64.RawURLEncoding.EncodeToString(id),
		Kind: app.OAuthClientRegistered, Name: name, LogoURI: m.LogoURI, ClientURI: m.ClientURI, RedirectURIs: uris})
	if err != nil {
		s.storeFailed(w, r, "register client", err)
		writeJSONError(w, http.StatusServiceUnavailable, "server_error", "Taasky could not save the registration just now; retry in a few seconds")
		return
	}
	m.RedirectURIs = c.RedirectURIs
	m.ClientName = c.Name
	m.TokenEndpointAuthMethod = "none"
	m.GrantTypes = []string{"authorization_code", "refresh_token"}
	m.ResponseTypes = []string{"code"}
	m.Scope = Scope
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(&oauthex.ClientRegistrationResponse{ClientRegistrationMetadata: m, ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt})
}

func writeJSONError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": description})
}

// describeJSONError says what is wrong with a registration that is not
// client metadata: the member of the wrong type and what it must be, or
// that the body is not a JSON object. The member is named as the client
// wrote it: encoding/json's path starts with the embedded metadata type's
// Go name ("ClientRegistrationMetadata.client_name"), which the client
// never wrote.
func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		te.Field = strings.TrimPrefix(te.Field, reflect.TypeFor[oauthex.ClientRegistrationMetadata]().Name()+".")
		want := "a " + te.Type.Kind().String()
		switch te.Type.Kind() {
		case reflect.Slice:
			want = "an array of " + te.Type.Elem().Kind().String() + "s"
		case reflect.Struct, reflect.Map:
			want = "an object"
		case reflect.Int, reflect.Int64, reflect.Float64:
			want = "a number"
		case reflect.Bool:
			want = "true or false"
		}
		return te.Field + ": must be " + want + " (got a JSON " + te.Value + ")"
	}
	return "the registration is not a JSON object of client metadata (RFC 7591)"
}
