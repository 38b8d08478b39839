package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

const testSecret = "0123456789abcdef0123456789abcdef"

// env is a getenv over a map.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// runCmd runs the program in process and returns its output.
func runCmd(t *testing.T, e env, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(t.Context(), args, e.get, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewEmptyDSN(t)
	for range 2 { // the second time, there is nothing to do
		out, _, err := runCmd(t, env{"DATABASE_URL": dsn}, "migrate")
		if err != nil {
			t.Fatalf("migrate: %v", err)
		}
		if out != "The database is up to date.\n" {
			t.Errorf("stdout = %q", out)
		}
	}
	pool, err := pgxpool.New(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var ok bool
	if err := pool.QueryRow(t.Context(), "SELECT to_regclass('agent_keys') IS NOT NULL AND to_regclass('river_job') IS NOT NULL").Scan(&ok); err != nil || !ok {
		t.Errorf("tables missing after migrate (%v)", err)
	}
}

func TestAccountAndAgentCreate(t *testing.T) {
	t.Parallel()
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "https://taasky.example.com/"}

	out, _, err := runCmd(t, e, "account", "create", "--slug", "acme", "--name", "Acme", "--owner-email", "alice@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Created account acme (Acme). Its owner logs in at https://taasky.example.com/\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	out, _, err = runCmd(t, e, "account", "create", "--slug=acme-2", "--name=Acme 2", "--owner-email=alice@example.test", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var acct map[string]any
	if err := json.Unmarshal([]byte(out), &acct); err != nil || acct["slug"] != "acme-2" || acct["name"] != "Acme 2" {
		t.Errorf("account JSON %q: %v", out, err)
	}
	_, _, err = runCmd(t, e, "account", "create", "--slug", "acme", "--name", "Again", "--owner-email", "bob@example.test")
	if err == nil || err.Error() != "create account: account slug already taken: acme" {
		t.Errorf("duplicate slug: %v", err)
	}

	out, _, err = runCmd(t, e, "agent", "create", "--account", "acme", "--name", "Helper", "--owner-email", "alice@example.test", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("agent JSON %q: %v", out, err)
	}
	if len(got) != 2 || got["mcp_url"] != "https://taasky.example.com/mcp/acme" || !strings.HasPrefix(got["key"], "tsk_") {
		t.Errorf("agent JSON = %q", out)
	}
	pool, err := pgxpool.New(t.Context(), e["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	agent, err := app.NewAccounts(pool).AuthenticateAgentKey(t.Context(), got["key"])
	if err != nil || agent.Name != "Helper" || agent.AccountSlug != "acme" {
		t.Errorf("the printed key authenticates %+v, %v", agent, err)
	}

	out, _, err = runCmd(t, e, "agent", "create", "--account", "acme", "--name", "Second", "--owner-email", "alice@example.test")
	if err != nil || !strings.Contains(out, "MCP URL: https://taasky.example.com/mcp/acme\n  Key:     tsk_") {
		t.Errorf("agent text output %q, %v", out, err)
	}
	_, _, err = runCmd(t, e, "agent", "create", "--account", "acme", "--name", "X", "--owner-email", "bob@example.test")
	if err == nil || err.Error() != "create agent: owner email: bob@example.test is not a member of account acme" {
		t.Errorf("non-member owner: %v", err)
	}
}

func TestBadCommandLines(t *testing.T) {
	t.Parallel()
	e := env{"DATABASE_URL": "postgres://127.0.0.1:1/none", "BASE_URL": "https://x.example.com"}
	tests := []struct {
		args []string
		want string
	}{
		{nil, "no command given"},
		{[]string{"launch"}, `unknown command "launch"`},
		{[]string{"account"}, "account: which command? try 'account create', 'account operator' or 'account delete'"},
		{[]string{"member"}, "member: which command? try 'member add', 'member remove' or 'member role'"},
		{[]string{"agent"}, "agent: which command? try 'agent create'"},
		{[]string{"account", "delete"}, "account delete: missing --account, --confirm (see 'taasky account delete -h')"},
		{[]string{"account", "remove"}, `unknown command "account remove"`},
		{[]string{"migrate", "now"}, `migrate: unexpected argument "now" (see 'taasky migrate -h')`},
		{[]string{"account", "create"}, "account create: missing --slug, --name, --owner-email (see 'taasky account create -h')"},
		{[]string{"account", "create", "--slug", "acme", "--name", " "}, "account create: missing --name, --owner-email (see 'taasky account create -h')"},
		{[]string{"account", "create", "--slug"}, "account create: flag needs an argument: -slug (see 'taasky account create -h')"},
		{[]string{"account", "operator", "--email", "a@x.test"}, "account operator: missing --account (see 'taasky account operator -h')"},
		{[]string{"agent", "create", "--acount", "x"}, "agent create: flag provided but not defined: -acount (see 'taasky agent create -h')"},
		{[]string{"agent", "create", "--json=maybe"}, `agent create: invalid boolean value "maybe" for -json: parse error (see 'taasky agent create -h')`},
		{[]string{"serve", "--web=false", "--worker=false"}, "serve: --web=false and --worker=false leave nothing to run (see 'taasky serve -h')"},
		{[]string{"serve", "--web=yes"}, `serve: invalid boolean value "yes" for -web: parse error (see 'taasky serve -h')`},
		{[]string{"dev", "--db", "sqlite"}, `dev: --db must be auto, local or private (got "sqlite") (see 'taasky dev -h')`},
		{[]string{"dev", "--db", "private"}, "dev: --db=private and DATABASE_URL both choose the database; unset one (see 'taasky dev -h')"},
	}
	for _, tt := range tests {
		_, _, err := runCmd(t, e, tt.args...)
		if err == nil || err.Error() != tt.want {
			t.Errorf("taasky %s: error %v, want %q", strings.Join(tt.args, " "), err, tt.want)
		}
		if !errors.As(err, new(usageError)) {
			t.Errorf("taasky %s: not a usage error (exit status 2)", strings.Join(tt.args, " "))
		}
	}

	// Configuration problems: every one, one line each.
	_, _, err := runCmd(t, env{"BASE_URL": "ftp://x", "SECRET_KEY": "short", "RETAIN_ONETAP_DAYS": "soon"}, "serve")
	want := "the configuration is incomplete or wrong (see README.md):\n  DATABASE_URL: is required"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "\n") != 7 ||
		!strings.Contains(err.Error(), "\n  RETAIN_ONETAP_DAYS: must be a whole number of days") {
		t.Errorf("serve without configuration: %v", err)
	}

	// -h prints the flags and succeeds.
	out, _, err := runCmd(t, e, "agent", "create", "-h")
	if err != nil || !strings.Contains(out, "Usage: taasky agent create [flags]") || !strings.Contains(out, "-owner-email email") {
		t.Errorf("agent create -h: %q, %v", out, err)
	}
}

func TestServe(t *testing.T) {
	t.Parallel()
	e := env{
		"DATABASE_URL":       pgtest.NewDSN(t),
		"BASE_URL":           "http://127.0.0.1",
		"LISTEN_ADDR":        "127.0.0.1:0",
		"SECRET_KEY":         testSecret,
		"OIDC_ISSUER":        "http://127.0.0.1:9",
		"OIDC_CLIENT_ID":     "taasky",
		"OIDC_CLIENT_SECRET": "secret",
	}
	p := start(t, e, "serve")
	for path, want := range map[string]string{"/healthz": "ok\n", "/readyz": "ready\n"} {
		status, body := get(t, "http://"+p.addr+path)
		if status != 200 || body != want {
			t.Errorf("GET %s = %d %q, want 200 %q", path, status, body, want)
		}
	}
	if err := p.stop(); err != nil {
		t.Fatalf("serve returned %v after its context ended", err)
	}
	if !strings.Contains(p.stderr.String(), `"msg":"stopped"`) {
		t.Errorf("no JSON log of the shutdown:\n%s", p.stderr.String())
	}
}

func TestDev(t *testing.T) {
	t.Parallel()
	e := env{
		"DATABASE_URL":    pgtest.NewDSN(t),
		"LISTEN_ADDR":     "127.0.0.1:0",
		"BASE_URL":        "http://127.0.0.1:8080",
		"XDG_CONFIG_HOME": t.TempDir(),
	}
	var keys []string
	for i := range 2 { // a restart issues new keys; old ones keep working
		p := start(t, e, "dev")
		// The secret key is made once, then kept across restarts.
		logs := p.stderr.String()
		kept := strings.Contains(logs, "secret_key="+e["XDG_CONFIG_HOME"]+"/taasky/dev-secret-key\n")
		made := strings.Contains(logs, `secret_key="`+e["XDG_CONFIG_HOME"]+`/taasky/dev-secret-key (new)"`)
		if (i == 0 && !made) || (i == 1 && !kept) {
			t.Errorf("start %d: the secret key was not made, then kept:\n%s", i, logs)
		}
		out := p.waitStdout(t, "Stop with Ctrl-C.")
		for _, want := range []string{
			"Dashboard: http://127.0.0.1:8080/",
			"demo-a (owner alice@example.test)",
			"MCP URL: http://127.0.0.1:8080/mcp/demo-a",
			"MCP URL: http://127.0.0.1:8080/mcp/demo-b",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("dev output lacks %q:\n%s", want, out)
			}
		}
		keys = append(keys, regexp.MustCompile(`tsk_[A-Za-z0-9_-]{43}`).FindAllString(out, -1)...)
		if status, _ := get(t, "http://"+p.addr+"/readyz"); status != 200 {
			t.Errorf("dev /readyz = %d", status)
		}
		if err := p.stop(); err != nil {
			t.Fatalf("dev returned %v", err)
		}
	}
	if len(keys) != 4 || keys[0] == keys[2] {
		t.Fatalf("keys printed: %q; want 2 per start, new ones each time", keys)
	}
	pool, err := pgxpool.New(context.Background(), e["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	accounts := app.NewAccounts(pool)
	for i, key := range keys {
		agent, err := accounts.AuthenticateAgentKey(t.Context(), key)
		if wantSlug := []string{"demo-a", "demo-b"}[i%2]; err != nil || agent.AccountSlug != wantSlug {
			t.Errorf("key %d: %+v, %v; want an agent of %s", i, agent, err, wantSlug)
		}
	}
	if agents, _ := accounts.ListAgents(t.Context(), "demo-a"); len(agents) != 1 {
		t.Errorf("demo-a has %d agents after two starts, want 1", len(agents))
	}
}

// process is `taasky` running in process until stop.
type process struct {
	addr   string
	stdout *syncBuffer
	stderr *syncBuffer
	stop   func() error
}

var listenLog = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"|msg=listening addr=(\S+)`)

// start runs taasky with args until the test stops it, and waits until it listens.
func start(t *testing.T, e env, args ...string) *process {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &process{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, e.get, p.stdout, p.stderr) }()
	var once sync.Once
	var result error
	p.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case result = <-done:
			case <-time.After(60 * time.Second):
				// Past serve's own bounds (River's stop is given 30 s):
				// what it waits on, for the next one to read.
				result = fmt.Errorf("did not return within 60 s of its context ending; its log:\n%s\nthe test binary's goroutines in Taasky's code:\n%s",
					p.stderr.String(), taaskyStacks())
			}
		})
		return result
	}
	t.Cleanup(func() { _ = p.stop() })
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listenLog.FindStringSubmatch(p.stderr.String()); m != nil {
			p.addr = m[1] + m[2]
			return p
		}
		select {
		case err := <-done:
			t.Fatalf("taasky %s returned before listening: %v\n%s", strings.Join(args, " "), err, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("taasky %s is not listening after 30 s:\n%s", strings.Join(args, " "), p.stderr.String())
	return nil
}

func (p *process) waitStdout(t *testing.T, marker string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if out := p.stdout.String(); strings.Contains(out, marker) {
			return out
		}
	}
	t.Fatalf("stdout lacks %q:\n%s", marker, p.stdout.String())
	return ""
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	return resp.StatusCode, body.String()
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// taaskyStacks is the stacks of this test binary's goroutines that run
// Taasky's code (not only the tests'), at most 200 KB of them.
func taaskyStacks() string {
	buf := make([]byte, 16<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out strings.Builder
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		// A frame is a function's line, then its file's.
		lines := strings.Split(g, "\n")
		for i := 0; i+1 < len(lines); i++ {
			if strings.HasPrefix(lines[i], "github.com/taasky/taasky/") && !strings.Contains(lines[i+1], "_test.go:") && out.Len() < 200<<10 {
				out.WriteString(g + "\n\n")
				break
			}
		}
	}
	return out.String()
}
