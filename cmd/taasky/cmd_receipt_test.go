package main

import (
	"context"
	"encoding/base64"
	"encoding/json"

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
	ctx := context.Background()
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
	schema := json.RawMessage(`{"day":{"type":"date","label":"Day"}}`)
	open, err := srv.rooms.Open(ctx, agent, app.OpenInput{Schema: schema, Subject: json.RawMessage(`{"day":"2026-12-24"}`), Title: "Holiday"})
	if err != nil {
		t.Fatal(err)
	}
	peer := peerAgent(t, srv)
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
	if _, _, err := runCmd(t, e, "receipt", "verify", good, good); err == nil || !strings.Contains(err.Error(), "one FILE only") {
		t.Errorf("two files: %v", err)
	}
}
