package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// freeAddr is a 127.0.0.1 address nothing listens on (for a BASE_URL that
// must name the listener, as the OIDC redirect does).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// devEnv is taasky dev's environment on a database of its own, listening
// where BASE_URL says.
func devEnv(t *testing.T) env {
	addr := freeAddr(t)
	return env{"DATABASE_URL": pgtest.NewDSN(t), "LISTEN_ADDR": addr, "BASE_URL": "http://" + addr,
		"XDG_CONFIG_HOME": t.TempDir()}
}

// signIn signs a browser in through the dev issuer's login page, starting
// at path; it returns the page it lands on.
func signIn(t *testing.T, base, path, email string) (*http.Client, *http.Response, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	resp, err := browser.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("GET %s did not lead to the login page: %s %s", path, resp.Request.URL, page)
	}
	resp, err = browser.PostForm(resp.Request.URL.String(), url.Values{"id": {string(m[1])}, "email": {email}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	return browser, resp, string(page)
}

// TestAdminJobsForOperators: `taasky account operator` flags a member; the
// River UI at /admin/jobs then opens for them after signing in (its page
// and its API), and stays a 404 for everyone else.
func TestAdminJobsForOperators(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	p := start(t, e, "dev")
	p.waitStdout(t, "Stop with Ctrl-C.")
	base := e["BASE_URL"]

	admin := env{"DATABASE_URL": e["DATABASE_URL"], "BASE_URL": base}
	if _, _, err := runCmd(t, admin, "account", "operator", "--account", "demo-a", "--email", "carol@example.test"); err == nil ||
		!strings.Contains(err.Error(), "carol@example.test is not a member of demo-a") {
		t.Fatalf("a non-member: %v", err)
	}
	out, _, err := runCmd(t, admin, "account", "operator", "--account", "demo-a", "--email", "alice@example.test")
	if err != nil || out != "alice@example.test is an operator: the job queue is at "+base+"/admin/jobs once they sign in.\n" {
		t.Fatalf("account operator: %q %v", out, err)
	}

	alice, resp, page := signIn(t, base, "/admin/jobs/", "alice@example.test")
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/admin/jobs/" || !strings.Contains(page, "<title>River</title>") ||
		!strings.Contains(page, `"apiUrl":"/admin/jobs/api"`) {
		t.Fatalf("the River UI: %d %s\n%s", resp.StatusCode, resp.Request.URL, page)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("River UI CSP %q", csp)
	}
	asset := regexp.MustCompile(`src="(/admin/jobs/assets/[^"]+\.js)"`).FindStringSubmatch(page)
	if asset == nil {
		t.Fatalf("no script in the River UI's page:\n%s", page)
	}
	for _, path := range []string{asset[1], "/admin/jobs/api/jobs?state=available&limit=5", "/admin/jobs/api/queues"} {
		resp, err := alice.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || (strings.Contains(path, "/api/") && !json.Valid(body)) {
			t.Errorf("GET %s: %d %.200s", path, resp.StatusCode, body)
		}
	}

	bob, _, _ := signIn(t, base, "/settings", "bob@example.test")
	for _, path := range []string{"/admin/jobs", "/admin/jobs/", "/admin/jobs/api/jobs?state=available"} {
		resp, err := bob.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("bob, GET %s: %d", path, resp.StatusCode)
		}
	}
	if out, _, err := runCmd(t, admin, "account", "operator", "--account", "demo-a", "--email", "alice@example.test", "--off"); err != nil ||
		!strings.Contains(out, "no longer an operator") {
		t.Fatalf("--off: %q %v", out, err)
	}
	if resp, _ := alice.Get(base + "/admin/jobs/"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("after --off: %d", resp.StatusCode)
	}
}

// TestInviteEmailThroughMCP: an agent's negotiation_open with invite_email,
// over MCP against the wired process, makes the invitation arrive at the
// SMTP server, from SMTP_FROM, with the invite URL the tool returned.
func TestInviteEmailThroughMCP(t *testing.T) {
	t.Parallel()
	smtp := notifytest.NewSMTPServer(t)
	e := devEnv(t)
	e["SMTP_URL"] = "smtp://" + net.JoinHostPort(smtp.Host, strconv.Itoa(smtp.Port))
	e["SMTP_FROM"] = "Taasky Invitations <invites@example.test>"
	_, keys := startDevAgents(t, e)
	session := agentSession(t, e["BASE_URL"]+"/mcp/demo-a", bearer(keys[0]))
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_open", Arguments: map[string]any{
		"subject_schema": json.RawMessage(`{"place":{"type":"enum","label":"Where","values":["office","video"]}}`),
		"title":          "Coffee?", "invite_email": "pat@example.test"}})
	if err != nil || res.IsError {
		t.Fatalf("negotiation_open: %v %+v", err, res)
	}
	var opened struct {
		InviteURL string `json:"invite_url"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &opened); err != nil || opened.InviteURL == "" {
		t.Fatalf("open result: %s", raw)
	}
	mails := smtp.Wait(t, 1, 15*time.Second)
	if mails[0].From != "invites@example.test" || len(mails[0].To) != 1 || mails[0].To[0] != "pat@example.test" {
		t.Fatalf("envelope: %s → %v", mails[0].From, mails[0].To)
	}
	m, err := notify.Parse(mails[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Header.Get("From"), "Taasky Invitations") || !strings.Contains(m.Subject, "“Coffee?”") ||
		!strings.Contains(m.Text, opened.InviteURL) {
		t.Fatalf("the invitation: From %q, subject %q\n%s", m.Header.Get("From"), m.Subject, m.Text)
	}
}

// TestSMTPFromIsChecked: a bad SMTP_FROM is one line among the others.
func TestSMTPFromIsChecked(t *testing.T) {
	t.Parallel()
	_, _, err := runCmd(t, env{"SMTP_FROM": "taasky at example"}, "migrate")
	if err == nil || !strings.Contains(err.Error(), "\n  DATABASE_URL: is required") ||
		!strings.Contains(err.Error(), "\n  SMTP_FROM: must be one email address, optionally with a name") {
		t.Fatalf("%v", err)
	}
}
