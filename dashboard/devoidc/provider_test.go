package devoidc_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/taasky/taasky/dashboard/devoidc"
)

// TestCodeFlowWithPKCE signs in through the provider as a relying party
// does: discovery, authorization code with PKCE S256, the login page, the
// token exchange and the ID token's verification (nonce, email claims).
func TestCodeFlowWithPKCE(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	issuer := srv.URL + "/dev-oidc"
	redirect := srv.URL + "/cb"
	h, err := devoidc.New(devoidc.Config{Issuer: issuer,
		Clients: []devoidc.Client{{ID: "rp", Secret: "s3cret", RedirectURIs: []string{redirect}}},
		Emails:  func(context.Context) ([]string, error) { return []string{"alice@example.test"}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/dev-oidc/", h)
	got := make(chan url.Values, 1)
	mux.HandleFunc("/cb", func(w http.ResponseWriter, r *http.Request) { got <- r.URL.Query() })

	ctx := context.Background()
	provider, err := oidc.NewProvider(ctx, issuer)
	if err != nil {
		t.Fatal(err)
	}
	conf := &oauth2.Config{ClientID: "rp", ClientSecret: "s3cret", Endpoint: provider.Endpoint(), RedirectURL: redirect,
		Scopes: []string{oidc.ScopeOpenID, "email"}}
	verifier := oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL("st", oidc.Nonce("nn"), oauth2.S256ChallengeOption(verifier))

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "Sign in as alice@example.test") {
		t.Fatalf("login page: %s", page)
	}
	id := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(string(page))
	if id == nil {
		t.Fatalf("no auth request id in %s", page)
	}
	resp, err = browser.PostForm(resp.Request.URL.String(), url.Values{"id": {id[1]}, "email": {"Alice@Example.test"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	q := <-got
	if q.Get("state") != "st" || q.Get("code") == "" {
		t.Fatalf("callback: %v", q)
	}
	tok, err := conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	idt, err := provider.Verifier(&oidc.Config{ClientID: "rp"}).Verify(ctx, tok.Extra("id_token").(string))
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Email    string `json:"email"`
		Verified bool   `json:"email_verified"`
	}
	if err := idt.Claims(&claims); err != nil || idt.Nonce != "nn" || claims.Email != "alice@example.test" || !claims.Verified {
		t.Fatalf("id token: %v nonce %q %+v", err, idt.Nonce, claims)
	}
	if _, err := conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier)); err == nil {
		t.Fatal("a code works once")
	}
}

// TestCodeExchangedOnce: two token requests with one code, sent at the
// same moment, get one set of tokens between them (RFC 6749 §4.1.2: a
// code is used once). The code was looked up, then forgotten only once
// the tokens were signed: both requests, in that window together, had
// tokens. Each round is one sign-in and its two exchanges.
func TestCodeExchangedOnce(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	issuer := srv.URL + "/dev-oidc"
	redirect := srv.URL + "/cb"
	h, err := devoidc.New(devoidc.Config{Issuer: issuer,
		Clients: []devoidc.Client{{ID: "rp", Secret: "s3cret", RedirectURIs: []string{redirect}}},
		Emails:  func(context.Context) ([]string, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/dev-oidc/", h)
	got := make(chan url.Values, 1)
	mux.HandleFunc("/cb", func(w http.ResponseWriter, r *http.Request) { got <- r.URL.Query() })
	ctx := context.Background()
	provider, err := oidc.NewProvider(ctx, issuer)
	if err != nil {
		t.Fatal(err)
	}
	conf := &oauth2.Config{ClientID: "rp", ClientSecret: "s3cret", Endpoint: provider.Endpoint(), RedirectURL: redirect,
		Scopes: []string{oidc.ScopeOpenID, "email"}}
	for round := range 20 {
		verifier := oauth2.GenerateVerifier()
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar}
		resp, err := browser.Get(conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		id := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(string(page))
		if id == nil {
			t.Fatalf("no auth request id in %s", page)
		}
		resp, err = browser.PostForm(resp.Request.URL.String(), url.Values{"id": {id[1]}, "email": {"alice@example.test"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		code := (<-got).Get("code")
		start := make(chan struct{})
		results := make(chan error, 2)
		for range 2 {
			go func() {
				<-start
				_, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
				results <- err
			}()
		}
		close(start)
		granted := 0
		for range 2 {
			if err := <-results; err == nil {
				granted++
			}
		}
		if granted != 1 {
			t.Fatalf("round %d: %d of two exchanges of one code had tokens, want 1", round, granted)
		}
	}
}
