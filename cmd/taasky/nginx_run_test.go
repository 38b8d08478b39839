package main

import (
	"bufio"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/taasky/taasky/mcpserver"
)

// TestBehindNginx runs deploy/nginx/taasky.conf in Debian's nginx, as an
// operator would (ports, certificate and upstream changed, nothing else),
// in front of `taasky dev` at an https BASE_URL, and goes through it as a
// person, a stranger and an agent: nginx's Host ($host, without the port)
// is not BASE_URL's, which before the origin check (proxy24, 2026-12-07)
// refused every form 403; the agent's URLs, the OAuth metadata and the
// sign-in's redirects must all follow BASE_URL; Taasky's, not nginx's, words
// for a body too large; nginx's request id in the answer; /metrics closed.
func TestBehindNginx(t *testing.T) {
	t.Parallel()
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx = "/usr/sbin/nginx"
		if _, err := os.Stat(nginx); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("no nginx on this machine: .ci/run must install it (nginx-light)")
			}
			t.Skip("no nginx on this machine (apt-get install nginx-light; .ci/run does)")
		}
	}
	e := devEnv(t)
	plain, secure := freeAddr(t), freeAddr(t)
	base := "https://localhost:" + secure[strings.LastIndexByte(secure, ':')+1:]
	e["BASE_URL"] = base
	e["TRUSTED_PROXIES"] = "127.0.0.1"
	dir := startNginx(t, nginx, e["LISTEN_ADDR"], plain, secure)

	_, keys := startDevAgents(t, e)

	// A stranger's form (the receipt check) posted from the page nginx
	// served, with the Origin a browser sends.
	stranger := &http.Client{Timeout: 20 * time.Second}
	resp, err := stranger.Get(base + "/verify")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(string(body))
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("GET /verify through nginx: %d\n%s", resp.StatusCode, body)
	}
	if resp.ProtoMajor != 2 {
		t.Errorf("GET /verify through nginx: %s, want HTTP/2 (the example's listen ... http2)", resp.Proto)
	}
	cookies := ""
	for _, c := range resp.Cookies() {
		cookies += c.Name + "=" + c.Value + "; "
	}
	req, _ := http.NewRequest("POST", base+"/verify", strings.NewReader(url.Values{"_csrf": {m[1]}, "receipt": {"not.a.receipt"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("Referer", base+"/verify")
	req.Header.Set("Cookie", cookies)
	if resp, err = stranger.Do(req); err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusForbidden || !strings.Contains(string(body), "<form") {
		t.Errorf("a stranger's form through nginx: %d\n%.600s", resp.StatusCode, body)
	}
	if id := resp.Header.Get("X-Request-Id"); !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) {
		t.Errorf("X-Request-Id %q: want nginx's $request_id (32 hex digits), as TRUSTED_PROXIES names nginx", id)
	}

	// A person signs in through nginx: the provider's discovery, its login
	// page and the callback all at BASE_URL, the session cookie https-only.
	alice, resp, page := signIn(t, base, "/settings", "alice@example.test")
	if resp.StatusCode != 200 || !strings.Contains(page, `href="/settings"`) || resp.Request.URL.Host != strings.TrimPrefix(base, "https://") {
		t.Errorf("signed in through nginx: %d at %s\n%.400s", resp.StatusCode, resp.Request.URL, page)
	}
	// Her rooms list's live stream, open through nginx while the agent
	// below opens a room in her account.
	changed := liveChange(t, alice.Jar, base+"/events")

	// An agent: its URLs are BASE_URL's, whatever Host nginx sent.
	s := agentSession(t, base+"/mcp/demo-a", bearer(keys[0]))
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_open", Arguments: map[string]any{
		"subject_schema": json.RawMessage(`{"fee":{"type":"money","label":"Fee","currency":"EUR"}}`), "title": "Through nginx"}})
	if err != nil || res.IsError {
		t.Fatalf("negotiation_open through nginx: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var opened struct {
		InviteURL string `json:"invite_url"`
	}
	if json.Unmarshal(raw, &opened); !strings.HasPrefix(opened.InviteURL, base+"/") {
		t.Errorf("invite_url %q, want under BASE_URL %s", opened.InviteURL, base)
	}
	if err := <-changed; err != nil {
		t.Errorf("alice's live rooms list through nginx: %v", err)
	}
	status, page := get(t, base+"/.well-known/oauth-protected-resource/mcp/demo-a")
	if status != 200 || !strings.Contains(page, `"resource":"`+base+`/mcp/demo-a"`) {
		t.Errorf("the protected resource's metadata through nginx: %d %s", status, page)
	}

	// A call over Taasky's body limit, under nginx's: Taasky's answer.
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_list","arguments":{"x":"` +
		strings.Repeat("a", mcpserver.MaxBody) + `"}}}`
	req, _ = http.NewRequest("POST", base+"/mcp/demo-a", strings.NewReader(big))
	req.Header.Set("Authorization", "Bearer "+keys[0])
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || strings.Contains(string(body), "nginx") || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("a call of %d bytes through nginx: %d %q\n%.300s", len(big), resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	// Bodies past nginx's limit and Taasky's (4 MiB), from a page of
	// another origin: refused by nginx, in the words, the format and with
	// the CORS header Taasky's doors give past their limit (refused), the
	// dashboard's without it. nginx's page was all a client read, and a
	// browser nothing ("Failed to fetch").
	huge := strings.Repeat("a", 4<<20+1)
	for _, c := range []struct{ what, path, contentType, cors, wantType, want string }{
		{"the door", "/mcp/demo-a", "application/json", "*", "text/plain", "request body exceeds 1048576 bytes\n"},
		{"the token endpoint", "/oauth/token", "application/x-www-form-urlencoded", "*", "application/json",
			`{"error":"invalid_request","error_description":"the request body exceeds 4194304 bytes"}`},
		{"the registration endpoint", "/oauth/register", "application/json", "*", "application/json",
			`{"error":"invalid_client_metadata","error_description":"the registration must be a JSON object of at most 16 KiB"}`},
		{"the receipt check", "/verify", "application/x-www-form-urlencoded", "", "text/plain", "the request body exceeds 4194304 bytes"},
	} {
		req, _ := http.NewRequest("POST", base+c.path, strings.NewReader(huge))
		req.Header.Set("Authorization", "Bearer "+keys[0])
		req.Header.Set("Content-Type", c.contentType)
		req.Header.Set("Origin", "https://client.example")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Access-Control-Allow-Origin") != c.cors ||
			len(resp.Header.Values("Content-Type")) != 1 || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.wantType) || strings.TrimSpace(string(body)) != strings.TrimSpace(c.want) {
			t.Errorf("%s, a body of 4 MiB and a byte through nginx: %d %v\n%.300s", c.what, resp.StatusCode, resp.Header, body)
		}
	}

	if status, _ := get(t, base+"/metrics"); status != http.StatusForbidden {
		t.Errorf("GET /metrics through nginx: %d, want 403", status)
	}
	noFollow := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if resp, err := noFollow.Get("http://" + plain + "/verify?x=1"); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusMovedPermanently || !strings.HasPrefix(resp.Header.Get("Location"), "https://") {
		t.Errorf("plain http: %d to %q, want 301 to https", resp.StatusCode, resp.Header.Get("Location"))
	}
	if t.Failed() {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		t.Logf("nginx's error log:\n%s", b)
	}
}

// liveChange opens a live page's stream at url with jar's session and
// reads it until a change: the returned channel gives nil then, or why not
// within 30 s. A stream lasts 45 s with a heartbeat every 15: a proxy that
// held its bytes until a buffer filled (nginx compressing it, or caching
// it, would) passes nothing, the stream's first line included, before it
// ends.
func liveChange(t *testing.T, jar http.CookieJar, url string) <-chan error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{Jar: jar}).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		resp.Body.Close()
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "retry:") { // the stream's first line, at once
		cancel()
		resp.Body.Close()
		t.Fatalf("the stream at %s said %q first (%v), want its retry line at once", url, lines.Text(), lines.Err())
	}
	done := make(chan error, 1)
	go func() {
		defer cancel()
		defer resp.Body.Close()
		for lines.Scan() {
			if lines.Text() == "event: change" {
				done <- nil
				return
			}
		}
		done <- fmt.Errorf("no change within 30 s: %v", lines.Err())
	}()
	return done
}

// nginxMain is Debian's stock /etc/nginx/nginx.conf (gzip on, its TLS
// protocols, sendfile) with its files moved into dir and the example
// included where the stock file includes conf.d and sites-enabled.
func nginxMain(t *testing.T, dir string) string {
	t.Helper()
	stock, err := os.ReadFile("/etc/nginx/nginx.conf")
	if err != nil {
		t.Fatalf("Debian's nginx.conf: %v (apt-get install nginx-light; .ci/run does)", err)
	}
	main := string(stock)
	for _, r := range [][2]string{
		{"user www-data;", ""}, // one process, this test's user
		{"pid /run/nginx.pid;", "pid " + dir + "/nginx.pid;"},
		{"error_log /var/log/nginx/error.log;", "error_log " + dir + "/error.log;"},
		{"access_log /var/log/nginx/access.log;", "access_log " + dir + "/access.log;"},
		{"include /etc/nginx/conf.d/*.conf;", "client_body_temp_path " + dir + "/body; proxy_temp_path " + dir + "/proxy; fastcgi_temp_path " + dir + "/fastcgi;"},
		{"include /etc/nginx/sites-enabled/*;", "include " + dir + "/taasky.conf;"},
	} {
		if !strings.Contains(main, r[0]) {
			t.Fatalf("/etc/nginx/nginx.conf no longer has %q: change this test with it", r[0])
		}
		main = strings.Replace(main, r[0], r[1], 1)
	}
	return main
}

// startNginx writes deploy/nginx/taasky.conf with what an operator changes
// (the upstream's address, the ports, the certificate: a testCA's) into
// Debian's stock nginx configuration in a temporary directory, checks it with
// nginx -t and runs nginx until the test ends; it returns the directory.
func startNginx(t *testing.T, nginx, upstream, plain, secure string) string {
	t.Helper()
	example, err := os.ReadFile("../../deploy/nginx/taasky.conf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	der, key := testCert(t)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert := filepath.Join(dir, "fullchain.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "privkey.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := string(example)
	for _, r := range [][2]string{
		{"server 127.0.0.1:8080;", "server " + upstream + ";"},
		{"listen 80;", "listen " + plain + ";"},
		{"listen [::]:80;", ""},
		{"listen 443 ssl http2;", "listen " + secure + " ssl http2;"},
		{"listen [::]:443 ssl http2;", ""},
		{"/etc/ssl/taasky.example.com/", dir + "/"},
	} {
		if strings.Count(conf, r[0]) == 0 {
			t.Fatalf("deploy/nginx/taasky.conf no longer has %q: change this test with it", r[0])
		}
		conf = strings.ReplaceAll(conf, r[0], r[1])
	}
	if err := os.WriteFile(filepath.Join(dir, "taasky.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(nginxMain(t, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log")}
	if out, err := exec.Command(nginx, append(args, "-t")...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t on the example: %v\n%s\n%s", err, out, conf)
	}
	cmd := exec.Command(nginx, append(args, "-g", "daemon off; master_process off;")...)
	// Killed with the test binary, even one that dies on -timeout (no
	// cleanup then); its output in the error log, holding no pipe open.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", secure); err == nil {
			c.Close()
			return dir
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not listen on %s:\n%s", secure, b)
		}
	}
}
