package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestNoRouteAnswersServerErrorWhenTheDatabaseFails walks every route the
// process serves (its route table), with real values in its path, as a
// stranger, the account's owner signed in (with the CSRF token) and an
// agent (its key, a tool call), while the database is gone (every
// connection ended, none accepted) or too slow (every table but the
// sessions' locked past the operator's statement_timeout). No answer may
// be a 5xx other than 503, and each 503 says when to retry (Retry-After);
// the probes, which say the database is unreachable, are left out. Once
// the database answers, the owner's pages are served again.
func TestNoRouteAnswersServerErrorWhenTheDatabaseFails(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"outage", "statement timeout"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			walkWhileTheDatabaseFails(t, fault)
		})
	}
}

func walkWhileTheDatabaseFails(t *testing.T, fault string) {
	srv, web, base, logged := walkedServer(t)

	bg := context.Background()
	if _, err := srv.accounts.CreateAccount(bg, "acme", "Acme", "owner@example.test"); err != nil {
		t.Fatal(err)
	}
	agent, key, err := srv.accounts.CreateAgent(bg, "acme", "acme's agent", "owner@example.test")
	if err != nil {
		t.Fatal(err)
	}
	room, err := srv.rooms.Open(bg, agent, app.OpenInput{Schema: []byte(`{"day":{"type":"date","label":"Day"}}`), InviteEmail: "guest@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	owner, resp, page := signIn(t, base, "/settings", "owner@example.test")
	csrf := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if resp.StatusCode != 200 || csrf == nil {
		t.Fatalf("the owner signs in: %d %s", resp.StatusCode, page)
	}
	owner.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	stranger := &http.Client{CheckRedirect: owner.CheckRedirect, Timeout: 20 * time.Second}
	roomID := strconv.FormatInt(room.View.RoomID, 10)
	realValue := map[string]string{":slug": "acme", ":account": "acme", ":id": roomID, ":user": "1", ":msg": "1",
		":token": "x", ":code": room.InviteCode, ":file": "app.css", ":endpoint": "token", "*": "x"}
	fill := func(path string) string {
		parts := strings.Split(path, "/")
		for i, p := range parts {
			if v, ok := realValue[p]; ok {
				parts[i] = v
			} else if strings.HasPrefix(p, ":") || p == "+" {
				parts[i] = "1"
			}
		}
		return strings.Join(parts, "/")
	}
	type route struct{ method, path string }
	var routes []route
	seen := map[route]bool{}
	for _, r := range web.GetRoutes(true) {
		rt := route{r.Method, r.Path}
		switch {
		case r.Method == fiber.MethodHead || r.Method == fiber.MethodConnect || r.Method == fiber.MethodTrace || seen[rt]:
			continue
		case slices.Contains([]string{"/healthz", "/readyz", "/metrics"}, r.Path), strings.HasSuffix(r.Path, "/logout"):
			continue // the probes say the database is away; a sign-out is kept for the end
		}
		seen[rt] = true
		routes = append(routes, rt)
	}

	var back func()
	if fault == "outage" {
		back = pgtest.Outage(t, srv.pool)
	} else {
		var tables []string
		if err := srv.pool.QueryRow(bg, `SELECT array_agg(quote_ident(tablename)) FROM pg_tables
			WHERE schemaname = 'public' AND tablename NOT IN ('users', 'user_sessions')`).Scan(&tables); err != nil {
			t.Fatal(err)
		}
		back = pgtest.HoldLock(t, srv.pool, `LOCK TABLE `+strings.Join(tables, ", ")+` IN ACCESS EXCLUSIVE MODE`).Release
		pgtest.StatementTimeout(t, srv.pool, 200*time.Millisecond)
	}
	sent := 0
	for _, r := range routes {
		method := r.method
		if method == "USE" || method == "ALL" {
			method = http.MethodGet
		}
		for _, who := range []string{"stranger", "owner", "agent"} {
			var body, ctype string
			switch {
			case who == "agent":
				body, ctype = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_list","arguments":{}}}`, "application/json"
			case method != http.MethodGet:
				body, ctype = url.Values{"_csrf": {csrf[1]}, "name": {"Renamed"}, "email": {"new@example.test"}, "time_zone": {"Europe/Paris"}}.Encode(),
					"application/x-www-form-urlencoded"
			}
			reqCtx, cancel := context.WithTimeout(bg, 15*time.Second)
			req, err := http.NewRequestWithContext(reqCtx, method, base+fill(r.path), strings.NewReader(body))
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			if ctype != "" {
				req.Header.Set("Content-Type", ctype)
			}
			client := stranger
			switch who {
			case "owner":
				client = owner
			case "agent":
				req.Header.Set("Authorization", "Bearer "+key.Key)
				req.Header.Set("Accept", "application/json, text/event-stream")
			}
			resp, err := client.Do(req)
			if err != nil {
				cancel()
				t.Errorf("%s %s as %s: %v", method, fill(r.path), who, err)
				continue
			}
			said, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
			resp.Body.Close()
			cancel()
			sent++
			if resp.StatusCode >= 500 && (resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "") {
				t.Errorf("%s %s as %s with the database failing: %d, Retry-After %q: %.300s", method, fill(r.path), who,
					resp.StatusCode, resp.Header.Get("Retry-After"), said)
			}
		}
	}
	t.Logf("%d routes, %d requests answered with the database failing", len(routes), sent)
	for _, line := range strings.Split(logged.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Logf("logged: %.400s", line)
		}
	}
	back()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := owner.Get(base + "/settings")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the owner's settings once the database is back: %v %v", resp, err)
		}
	}
}
