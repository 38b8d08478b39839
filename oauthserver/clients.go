package oauthserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ory/fosite"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/netguard"
	"github.com/taasky/taasky/negotiation"
)

// clients finds the clients a request names: registered ones in the
// database, and Client ID Metadata Documents (an https client_id) fetched
// from their URL, kept for as long as their HTTP caching allows.
type clients struct {
	state    State
	http     *http.Client
	audience string // every client's tokens are for resources under it
	now      func() time.Time
}

const (
	metadataMaxBytes = 16 << 10
	metadataTimeout  = 5 * time.Second
	metadataMinFresh = time.Minute
	metadataMaxFresh = 24 * time.Hour
	metadataDefFresh = time.Hour
)

// Scope is the one scope: negotiating for the person.
const Scope = "negotiate"

// newMetadataClient fetches metadata documents: a short timeout, https
// only, at most 3 redirects, and, unless allowPrivate (dev and test), no
// connection to a loopback, private or link-local address, whichever
// hop it is.
func newMetadataClient(allowPrivate bool, base http.RoundTripper) *http.Client {
	if base == nil {
		dialer := netguard.Dialer(metadataTimeout, allowPrivate)
		base = &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: metadataTimeout,
			ResponseHeaderTimeout: metadataTimeout, MaxResponseHeaderBytes: 16 << 10}
	}
	return &http.Client{Timeout: metadataTimeout, Transport: base,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > 3 { // via holds the first request and each redirect followed
				return errors.New("more than 3 redirects")
			}
			if req.URL.Scheme != "https" {
				return fmt.Errorf("a redirect to %s, which is not https", req.URL.Redacted())
			}
			return nil
		}}
}

// isMetadataURL says whether a client_id names a metadata document.
func isMetadataURL(id string) bool { return strings.HasPrefix(id, "https://") }

// get returns the client with id: ErrInvalid (or ErrNotFound) with a
// message naming the rule, ErrInternal when the database failed. Before
// fetching a metadata document it asks allow, whose error (a
// *ratelimit.Exceeded) it returns instead.
func (cs *clients) get(ctx context.Context, id string, allow func() error) (app.OAuthClient, error) {
	if id == "" {
		return app.OAuthClient{}, app.Refuse(app.ErrInvalid, "error.oauth_client_id_required", "client_id: is required")
	}
	c, err := cs.state.Client(ctx, id)
	switch {
	case err == nil && (!isMetadataURL(id) || c.FreshUntil != nil && cs.now().Before(*c.FreshUntil)):
		return c, nil
	case err != nil && app.ErrorCodeOf(err) != app.ErrNotFound:
		return app.OAuthClient{}, err
	case !isMetadataURL(id):
		return app.OAuthClient{}, app.Refuse(app.ErrNotFound, "error.oauth_client_unknown",
			"client_id: no client %q is registered with Taasky (register with Dynamic Client Registration, or use a Client ID Metadata Document URL)", id)
	}
	if err := allow(); err != nil {
		return app.OAuthClient{}, err
	}
	return cs.fetch(ctx, id)
}

// stored returns the client with id as Taasky keeps it, never fetching:
// what the token and revocation endpoints check (fosite's GetClient). Its
// metadata document was fetched for the authorization (get, before fosite
// reads the request), and a client no authorization ever fetched or
// registered has no code or token to exchange: fetching for it let anyone,
// without signing in, make Taasky fetch any https URL, four times a
// request, five seconds each.
func (cs *clients) stored(ctx context.Context, id string) (app.OAuthClient, error) {
	if id == "" {
		return app.OAuthClient{}, app.Refuse(app.ErrInvalid, "error.oauth_client_id_required", "client_id: is required")
	}
	c, err := cs.state.Client(ctx, id)
	if app.ErrorCodeOf(err) == app.ErrNotFound {
		return app.OAuthClient{}, app.Refuse(app.ErrNotFound, "error.oauth_client_unknown",
			"client_id: no client %q is registered with Taasky (register with Dynamic Client Registration, or use a Client ID Metadata Document URL)", id)
	}
	return c, err
}

// metadataDocument is what Taasky reads of a Client ID Metadata Document.
type metadataDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri"`
	LogoURI                 string   `json:"logo_uri"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

func (cs *clients) fetch(ctx context.Context, id string) (app.OAuthClient, error) {
	// bad is a fault of the document, in words the catalog has (key; its
	// English is format, whose first verb is the document's URL).
	bad := func(key, format string, args ...any) (app.OAuthClient, error) {
		return app.OAuthClient{}, app.Refuse(app.ErrInvalid, key, format, append([]any{id}, args...)...)
	}
	u, err := url.Parse(id)
	if err != nil || u.Host == "" || u.Fragment != "" || u.User != nil || u.Path == "" || u.Path == "/" {
		return bad("oauth8_metadata_url", "client_id: the client's metadata document at %s is not an https URL with a path")
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if seg == "." || seg == ".." || strings.EqualFold(seg, "%2e") || strings.EqualFold(seg, "%2e%2e") ||
			strings.EqualFold(seg, ".%2e") || strings.EqualFold(seg, "%2e.") {
			// Client ID Metadata Document: no dot segments, so that the
			// URL shown is the document fetched.
			return bad("oauth8_metadata_dots", "client_id: the client's metadata document at %s has a . or .. segment in its path")
		}
	}
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return bad("oauth8_metadata_unfetchable", "client_id: the client's metadata document at %s is not a URL Taasky can fetch")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := cs.http.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Timeout") {
			return bad("oauth8_metadata_timeout", "client_id: the client's metadata document at %s did not answer within %s", metadataTimeout)
		}
		return bad("oauth8_metadata_fetch", "client_id: the client's metadata document at %s could not be fetched (%s)", describeFetchError(err))
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return bad("oauth8_metadata_status", "client_id: the client's metadata document at %s answered HTTP %d, not 200", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, metadataMaxBytes+1))
	if err != nil {
		return bad("oauth8_metadata_read", "client_id: the client's metadata document at %s could not be read within %s", metadataTimeout)
	}
	if len(body) > metadataMaxBytes {
		return bad("oauth8_metadata_size", "client_id: the client's metadata document at %s is larger than %d KiB", metadataMaxBytes>>10)
	}
	var doc metadataDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return bad("oauth8_metadata_json", "client_id: the client's metadata document at %s is not a JSON object of client metadata")
	}
	if doc.ClientID != id {
		return bad("oauth8_metadata_client_id", "client_id: the client's metadata document at %s names another client_id (%q): it must be its own URL", doc.ClientID)
	}
	switch doc.TokenEndpointAuthMethod {
	case "", "none":
	default:
		return bad("oauth8_metadata_auth", "client_id: the client's metadata document at %s asks for token_endpoint_auth_method %q: Taasky supports public clients only (none, with PKCE)", doc.TokenEndpointAuthMethod)
	}
	c := app.OAuthClient{ID: id, Kind: app.OAuthClientMetadataDocument, LogoURI: doc.LogoURI, ClientURI: doc.ClientURI}
	if c.Name, err = clientName(doc.ClientName, u.Host); err != nil {
		return bad("oauth8_metadata_name", "client_id: the client's metadata document at %s has a client_name that %s", err.Error())
	}
	if c.RedirectURIs, err = checkRedirectURIs(doc.RedirectURIs); err != nil {
		return bad("oauth8_metadata_redirects", "client_id: the client's metadata document at %s has redirect_uris that %s", err.Error())
	}
	if err := checkGrants(doc.GrantTypes, doc.ResponseTypes); err != nil {
		return bad("oauth8_metadata_grants", "client_id: the client's metadata document at %s %s", err.Error())
	}
	if !httpsOrEmpty(c.LogoURI) || !httpsOrEmpty(c.ClientURI) {
		return bad("oauth8_metadata_https", "client_id: the client's metadata document at %s has a logo_uri or client_uri that is not https")
	}
	fresh := cs.now().Add(freshFor(resp.Header))
	c.FreshUntil = &fresh
	return cs.state.SaveClient(ctx, c)
}

func describeFetchError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// freshFor reads the response's caching: max-age (or Expires), no-store
// and no-cache (fetch again next time) wherever they stand among the
// directives, in one header line or several (RFC 9111 §5.2.2: "max-age=600,
// no-store" is not stored), bounded to a minute and a day. The first
// max-age counts, its argument quoted or not (§5.2), and the Expires is
// ignored then (§5.3); a max-age that is no delta-seconds ("ten", "-1",
// "= 600") or an Expires that is no date ("0") says the document is stale
// (§4.2.1, §5.3): the least Taasky keeps it, not the hour of a document
// that says nothing. An Expires counts from the response's Date.
func freshFor(h http.Header) time.Duration {
	maxAge, hasMaxAge := "", false
	for _, d := range strings.Split(strings.ToLower(strings.Join(h.Values("Cache-Control"), ",")), ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.TrimSpace(name) {
		case "no-store", "no-cache":
			return 0
		case "max-age":
			if !hasMaxAge {
				maxAge, hasMaxAge = value, true
				if !ok {
					maxAge = "-" // no argument: no delta-seconds
				}
			}
		}
	}
	if hasMaxAge {
		if len(maxAge) >= 2 && maxAge[0] == '"' && maxAge[len(maxAge)-1] == '"' {
			maxAge = maxAge[1 : len(maxAge)-1]
		}
		if maxAge == "" || strings.Trim(maxAge, "0123456789") != "" {
			return metadataMinFresh
		}
		n, err := strconv.ParseInt(maxAge, 10, 64)
		if err != nil || n > int64(metadataMaxFresh/time.Second) {
			return metadataMaxFresh // past what can be counted: the longest (§1.2.2)
		}
		return min(max(time.Duration(n)*time.Second, metadataMinFresh), metadataMaxFresh)
	}
	if expires := h.Values("Expires"); len(expires) > 0 {
		e, err := http.ParseTime(expires[0])
		if err != nil {
			return metadataMinFresh
		}
		// Expires is on the server's clock: less its Date (§4.2.1), or
		// the moment received without one.
		date, err := http.ParseTime(h.Get("Date"))
		if err != nil {
			date = time.Now()
		}
		return min(max(e.Sub(date), metadataMinFresh), metadataMaxFresh)
	}
	return metadataDefFresh
}

func clientName(name, fallback string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = fallback
	}
	if n := utf8.RuneCountInString(name); n > 80 || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return "", errors.New("is longer than 80 characters or holds control characters")
	}
	// The name is the name of the agent the client becomes, which the other
	// side of a negotiation reads: held to an agent name's rules (app's
	// checkName), so that it cannot hide or pass for another name.
	if !negotiation.ReadableLine(name) {
		return "", errors.New("holds control or direction-changing characters (it names the agent the client becomes)")
	}
	if why := negotiation.Deceptive(name); why != "" {
		return "", fmt.Errorf("%s (it names the agent the client becomes)", why)
	}
	return name, nil
}

// checkRedirectURIs: 1–10 absolute URIs without a fragment or an IPv6
// zone identifier; http only to a loopback address (a native app), https
// or a private-use scheme else.
func checkRedirectURIs(uris []string) ([]string, error) {
	if len(uris) < 1 || len(uris) > 10 {
		return nil, fmt.Errorf("must list 1 to 10 URIs (got %d)", len(uris))
	}
	for _, raw := range uris {
		u, err := url.Parse(raw)
		switch {
		case err != nil || !u.IsAbs() || len(raw) > 2000:
			return nil, fmt.Errorf("include %q, which is not an absolute URI", raw)
		case u.Fragment != "":
			return nil, fmt.Errorf("include %q, which has a fragment", raw)
		case (u.Scheme == "http" || u.Scheme == "https") && (u.Opaque != "" || u.Host == "" || u.Hostname() == ""):
			// "https:evil.example" has no host to Go, and the consent
			// screen would show none; a browser goes to evil.example.
			return nil, fmt.Errorf("include %q, which names no host (write %s://host/path)", raw, u.Scheme)
		case strings.Contains(u.Host, "%"):
			// Go reads [::1%25x] as a loopback address; no browser
			// opens a URI with an IPv6 zone identifier.
			return nil, fmt.Errorf("include %q, whose host has an IPv6 zone identifier (%%25…), which browsers refuse: write http://[::1]:port/ or http://127.0.0.1:port/", raw)
		case u.User != nil:
			return nil, fmt.Errorf("include %q, which has a user name before its host (the consent screen shows the host)", raw)
		case !app.ValidPort(u.Port()):
			return nil, fmt.Errorf("include %q, whose port is not a number from 1 to 65535", raw)
		case u.Scheme == "http" && !netguard.IsLoopbackHost(u.Hostname()):
			return nil, fmt.Errorf("include %q: http is allowed only to localhost, 127.0.0.1 or [::1]", raw)
		case u.Scheme == "javascript" || u.Scheme == "data" || u.Scheme == "file":
			return nil, fmt.Errorf("include %q, whose scheme is not allowed", raw)
		}
	}
	return uris, nil
}

func checkGrants(grants, responses []string) error {
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			return fmt.Errorf("asks for grant type %q: Taasky offers authorization_code and refresh_token", g)
		}
	}
	for _, r := range responses {
		if r != "code" {
			return fmt.Errorf("asks for response type %q: Taasky offers code", r)
		}
	}
	return nil
}

func httpsOrEmpty(s string) bool {
	if s == "" {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != ""
}

// fosite is the client as fosite checks it: public (PKCE, no secret), the
// code and refresh grants, its tokens for resources under /mcp.
func (cs *clients) fosite(c app.OAuthClient) fosite.Client {
	return &fosite.DefaultClient{ID: c.ID, RedirectURIs: c.RedirectURIs, Public: true,
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		Scopes: []string{Scope, "offline_access"}, Audience: []string{cs.audience}}
}
