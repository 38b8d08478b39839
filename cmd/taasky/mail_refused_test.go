package main

import (
	"encoding/json"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/internal/metricstest"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestMailRefusedForGoodIsLogged: a mail server that refuses every
// message for good (554 at the data: a sender's policy, SPF) cancels each
// invitation at its first attempt. Before, River logged nothing of a job
// it cancels and no mail was retried: the log had no line, and the
// suggested alert, on retried mails, stayed quiet. Now each refusal is a
// WARN line with its job and the server's words, the address left out,
// and /metrics counts it cancelled.
func TestMailRefusedForGoodIsLogged(t *testing.T) {
	t.Parallel()
	smtp := notifytest.NewSMTPServer(t)
	smtp.RefuseForGood(100)
	e := devEnv(t)
	e["SMTP_URL"] = "smtp://" + net.JoinHostPort(smtp.Host, strconv.Itoa(smtp.Port))
	p, keys := startDevAgents(t, e)
	session := agentSession(t, e["BASE_URL"]+"/mcp/demo-a", bearer(keys[0]))
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_open", Arguments: map[string]any{
		"subject_schema": json.RawMessage(`{"place":{"type":"enum","label":"Where","values":["office","video"]}}`),
		"title":          "Coffee?", "invite_email": "pat@example.test"}})
	if err != nil || res.IsError {
		t.Fatalf("negotiation_open: %v %+v", err, res)
	}
	line := ""
	for deadline := time.Now().Add(30 * time.Second); line == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, l := range strings.Split(p.stderr.String(), "\n") {
			if strings.Contains(l, `msg="delivery refused for good: not retried"`) {
				line = l
			}
		}
	}
	if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "channel=email") || !strings.Contains(line, "554") ||
		!regexp.MustCompile(`job_id=\d+`).MatchString(line) {
		t.Fatalf("no WARN line for the refused invitation:\n%s", p.stderr.String())
	}
	if strings.Contains(p.stderr.String(), "pat@example.test") {
		t.Errorf("the address in the log:\n%s", p.stderr.String())
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		m := metricstest.Scrape(t, e["BASE_URL"]+"/metrics")
		if v, _ := m.Value("taasky_jobs_total", "kind", "notify_invite", "outcome", "cancelled"); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the refused invitation is not counted cancelled")
		}
	}
}
