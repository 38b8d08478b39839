package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http/cookiejar"
	"net/url"
	"regexp"

	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/negotiation"
)

const base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// TestReceiptVerifyCommand: a receipt the service issued for an agreed
// room (key version 2, after a rotation) verifies offline against the keys
// fetched from the issuer or read from a file; each bad receipt is one
// line naming its problem, and the command fails.
func TestReceiptVerifyCommand(t *testing.T) {
	t.Parallel()
	var jwks atomic.Value
	issuer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != jwksPath {
			http.NotFound(w, r)
			return
		}
		w.Write(jwks.Load().([]byte))
	}))
	defer issuer.Close()
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": issuer.URL, "SECRET_KEY": testSecret, "RECEIPT_KEY_VERSION": "2"}
	cfg, err := loadConfig(e.get, 0)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := receiptKeys(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jwks.Store(keys.JWKSJSON())
	srv, agent := acmeServer(t, e)
	jws := agreedReceipt(t, srv, agent)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.jws", jws)
	keysFile := write("jwks.json", string(keys.JWKSJSON()))

	for name, args := range map[string][]string{
		"keys fetched from the issuer": {good, "--jwks", issuer.URL + jwksPath},
		"keys from BASE_URL":           {good},
		"keys from a file":             {good, "--jwks", keysFile, "--issuer", issuer.URL},
		"flags first":                  {"--jwks", keysFile, good},
		"flags with =, first":          {"--jwks=" + keysFile, good},
		"the file between flags":       {"--jwks", keysFile, good, "--issuer=" + issuer.URL},
		// BASE_URL's rule: its scheme and host are lower-cased, the
		// trailing slash dropped.
		"the issuer in capitals": {good, "--jwks", keysFile, "--issuer", strings.ToUpper(issuer.URL) + "/"},
	} {
		out, _, err := runCmd(t, e, append([]string{"receipt", "verify"}, args...)...)
		if err != nil || !strings.HasPrefix(out, `valid: room `) || !strings.Contains(out, `"Holiday"`) || !strings.Contains(out, "taasky-receipt-2-") {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
	}

	parts := strings.Split(jws, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := write("tampered.jws", parts[0]+"."+base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), "2026-12-24", "2026-12-25", 1)))+"."+parts[2])
	// Only the issuer changed: the signature no longer matches, whether the
	// keys come from the issuer's URL (which names the issuer expected) or
	// from a file (any issuer accepted).
	var facts map[string]any
	if err := json.Unmarshal(raw, &facts); err != nil {
		t.Fatal(err)
	}
	facts["iss"] = "https://evil.example"
	evilPayload, _ := json.Marshal(facts)
	evil := write("evil.jws", parts[0]+"."+base64.RawURLEncoding.EncodeToString(evilPayload)+"."+parts[2])
	// The signature's last character changed in its unused bits only: the
	// same bytes, another spelling.
	sigEnd := strings.IndexByte(base64URL, parts[2][len(parts[2])-1])
	otherSpelling := parts[0] + "." + parts[1] + "." + parts[2][:len(parts[2])-1] + string(base64URL[sigEnd^1])
	otherCfg, _ := loadConfig(env{"DATABASE_URL": e["DATABASE_URL"], "BASE_URL": issuer.URL, "SECRET_KEY": testSecret + "x", "RECEIPT_KEY_VERSION": "2"}.get, 0)
	otherKeys, _ := receiptKeys(otherCfg)
	foreignKeys := write("other.json", string(otherKeys.JWKSJSON()))
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"tampered":                             {[]string{tampered, "--jwks", keysFile}, "tampered: "},
		"issuer changed, keys from the issuer": {[]string{evil, "--jwks", issuer.URL + jwksPath}, "tampered: "},
		"issuer changed, keys from a file":     {[]string{evil, "--jwks", keysFile}, "tampered: "},
		"not a receipt":                        {[]string{write("junk.jws", "hello"), "--jwks", keysFile}, "malformed: "},
		"another issuer":                       {[]string{good, "--jwks", keysFile, "--issuer", "https://taasky.example"}, "foreign: "},
		"a kid not there":                      {[]string{good, "--jwks", foreignKeys}, "unknown_key: "},
		"another spelling of the signature":    {[]string{write("spelt.jws", otherSpelling), "--jwks", keysFile}, "malformed: the signature is not canonical base64url"},
		"an issuer that is no URL":             {[]string{good, "--jwks", keysFile, "--issuer", "notaurl"}, "receipt verify: --issuer: must be an absolute http(s) URL"},
		"an issuer with a port beyond 65535":   {[]string{good, "--jwks", keysFile, "--issuer", "https://taasky.example:99999"}, "receipt verify: --issuer: the port must be 1 to 65535"},
		"no file":                              {[]string{filepath.Join(dir, "absent.jws"), "--jwks", keysFile}, "cannot read the receipt " + filepath.Join(dir, "absent.jws") + ": no such file or directory"},
		"a directory":                          {[]string{dir, "--jwks", keysFile}, "cannot read the receipt " + dir + ": is a directory"},
	} {
		_, _, err := runCmd(t, e, append([]string{"receipt", "verify"}, c.args...)...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line starting %q", name, err, c.want)
		}
	}
	// A missing file is said before the keys are looked for: without
	// --jwks or BASE_URL, it is not "no keys".
	absent := filepath.Join(dir, "absent.jws")
	if _, _, err := runCmd(t, env{}, "receipt", "verify", absent); err == nil ||
		err.Error() != "cannot read the receipt "+absent+": no such file or directory" {
		t.Errorf("no file and no keys: %v", err)
	}
	if _, _, err := runCmd(t, e, "receipt", "verify"); err == nil {
		t.Error("no file: no error")
	}
	// Keys looked for at BASE_URL (no --jwks given) that cannot be had: the
	// line names BASE_URL, the setting to correct, not a flag never given.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if _, _, err := runCmd(t, env{"BASE_URL": gone.URL}, "receipt", "verify", good); err == nil ||
		!strings.HasPrefix(err.Error(), "BASE_URL's keys "+gone.URL+jwksPath+": ") || strings.Contains(err.Error(), "--jwks") {
		t.Errorf("keys at an unreachable BASE_URL: %v", err)
	}
	if _, _, err := runCmd(t, e, "receipt", "verify", good, good); err == nil || !strings.Contains(err.Error(), "one FILE only") {
		t.Errorf("two files: %v", err)
	}
}

// TestReceiptKeyIsNeverRetired: during a rotation (RECEIPT_KEY_VERSION
// raised from 1 to 2 process by process), a process still on 1 publishes
// the key of version 2 ahead, so the raised one's receipts verify at its
// /.well-known/jwks.json, its /verify and with `taasky receipt verify`;
// after it, a process started with 1 again is refused, naming
// RECEIPT_KEY_VERSION, instead of publishing v1 only and calling the
// service's own v2 receipts unknown.
func TestReceiptKeyIsNeverRetired(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDSN(t)
	version := func(v string) env {
		return env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
			"SECRET_KEY": testSecret, "RECEIPT_KEY_VERSION": v,
			"OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret"}
	}
	before := start(t, version("1"), "serve")
	raised := start(t, version("2"), "serve")
	srv, agent := acmeServer(t, version("2")) // signs as the raised process does
	jws := agreedReceipt(t, srv, agent)
	var header struct {
		Kid string `json:"kid"`
	}
	raw, _ := base64.RawURLEncoding.DecodeString(strings.Split(jws, ".")[0])
	if err := json.Unmarshal(raw, &header); err != nil {
		t.Fatal(err)
	}
	kid := header.Kid
	if !strings.HasPrefix(kid, "taasky-receipt-2-") {
		t.Fatalf("the raised process signs with %s", kid)
	}

	base := "http://" + before.addr
	resp, err := http.Get(base + jwksPath)
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []struct {
			Kid string `json:"kid"`
		} `json:"keys"`
	}
	err = json.NewDecoder(resp.Body).Decode(&set)
	resp.Body.Close()
	if err != nil || len(set.Keys) != 2 || set.Keys[1].Kid != kid {
		t.Fatalf("the process on version 1 publishes %+v (%v), want v1 and v2 (%s)", set.Keys, err, kid)
	}
	file := filepath.Join(t.TempDir(), "v2.jws")
	if err := os.WriteFile(file, []byte(jws), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCmd(t, env{}, "receipt", "verify", file, "--jwks", base+jwksPath, "--issuer", "http://127.0.0.1"); err != nil ||
		!strings.HasPrefix(out, "valid: ") {
		t.Errorf("receipt verify against the process on version 1: %v %s", err, out)
	}
	// Its /verify, as a stranger's browser posts it.
	jar, _ := cookiejar.New(nil)
	stranger := &http.Client{Jar: jar}
	resp, err = stranger.Get(base + "/verify")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("/verify: %d, no form", resp.StatusCode)
	}
	resp, err = stranger.PostForm(base+"/verify", url.Values{"_csrf": {string(m[1])}, "receipt": {jws}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), `data-verdict="valid"`) {
		t.Errorf("/verify of the process on version 1: %d\n%s", resp.StatusCode, page)
	}

	// The rotation done, a process on version 1 again (a node not
	// updated, or the setting lowered) does not start; 2 and 3 do.
	if err := errors.Join(before.stop(), raised.stop()); err != nil {
		t.Fatal(err)
	}
	err = startOrRefuse(t, version("1"), "serve")
	if err == nil || !strings.Contains(err.Error(), "RECEIPT_KEY_VERSION is 1, below 2") || strings.Contains(err.Error(), "\n") {
		t.Errorf("version 1 after version 2: %v, want one line naming RECEIPT_KEY_VERSION", err)
	}
	for _, v := range []string{"2", "3"} {
		if err := start(t, version(v), "serve").stop(); err != nil {
			t.Errorf("version %s: %v", v, err)
		}
	}
	if err := startOrRefuse(t, version("2"), "serve"); err == nil || !strings.Contains(err.Error(), "below 3") {
		t.Errorf("version 2 after version 3: %v", err)
	}
}

// TestAdminCommandsLeaveTheReceiptKeyVersion: `taasky check` and
// `taasky account delete` sign no receipt, so they neither need
// RECEIPT_KEY_VERSION after a rotation (an operator's shell has the
// variables README lists for them, not the pods' version) nor record
// theirs: one run with a higher version than the service's used to raise
// the installation's, and every process of the service then refused to
// start again ("RECEIPT_KEY_VERSION is 2, below 5").
func TestAdminCommandsLeaveTheReceiptKeyVersion(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDSN(t)
	serve := env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret, "RECEIPT_KEY_VERSION": "2",
		"OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret"}
	if err := start(t, serve, "serve").stop(); err != nil { // the service, rotated to 2
		t.Fatal(err)
	}
	shell := env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret}
	if out, _, err := runCmd(t, shell, "check"); err != nil || !strings.Contains(out, "0 differences") {
		t.Errorf("check without RECEIPT_KEY_VERSION after a rotation: %v %s", err, out)
	}
	if _, _, err := runCmd(t, shell, "account", "create", "--slug", "acme", "--name", "Acme", "--owner-email", "a@example.test"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, shell, "account", "delete", "--account", "acme", "--confirm", "acme"); err != nil {
		t.Errorf("account delete without RECEIPT_KEY_VERSION after a rotation: %v", err)
	}
	shell["RECEIPT_KEY_VERSION"] = "5"
	if out, _, err := runCmd(t, shell, "check"); err != nil {
		t.Fatalf("check with version 5: %v %s", err, out)
	}
	if err := startOrRefuse(t, serve, "serve"); err == nil || err.Error() != "it started" {
		t.Errorf("the service on version 2 after a check with 5: %v, want it started", err)
	}
}

// agreedReceipt agrees a room of agent's (acme's, with globex) and returns
// its receipt, signed by srv.
func agreedReceipt(t *testing.T, srv *server, agent app.Agent) string {
	t.Helper()
	return agreedOn(t, srv, agent, peerAgent(t, srv), "2026-12-24")
}

// agreedOn opens a room of agent's on the day, joined by peer, has both
// humans agree it, and returns its receipt, signed by srv.
func agreedOn(t *testing.T, srv *server, agent, peer app.Agent, day string) string {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	schema := json.RawMessage(`{"day":{"type":"date","label":"Day"}}`)
	open, err := srv.rooms.Open(ctx, agent, app.OpenInput{Schema: schema, Subject: json.RawMessage(`{"day":"` + day + `"}`), Title: "Holiday"})
	if err != nil {
		t.Fatal(err)
	}
	join, err := srv.rooms.Join(ctx, peer, app.JoinInput{InviteCode: open.InviteCode, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	hash := join.View.TermsOnTable.Options[0].SubjectHash
	for _, side := range []struct {
		agent app.Agent
		token string
	}{{peer, join.RoomToken}, {agent, open.RoomToken}} {
		c, _, err := srv.rooms.RequestConfirmation(ctx, side.agent, side.token, negotiation.VerdictApprove, hash)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.rooms.DecideAsOwner(ctx, side.agent.OwnerUserID, join.View.RoomID, c.ID, hash, true); err != nil {
			t.Fatal(err)
		}
	}
	jws, err := srv.rooms.Receipt(ctx, join.View.RoomID)
	if err != nil {
		t.Fatal(err)
	}
	return jws
}
