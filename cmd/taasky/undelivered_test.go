package main

import (
	"encoding/json"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/notify/notifytest"
)

// undeliveredEnv is taasky dev mailing through a test SMTP server that
// refuses the address refused at RCPT TO (550 5.1.1), with an MCP session
// for each demo account's agent (demo-a's, then demo-b's).
func undeliveredEnv(t *testing.T, refused string) (base string, agents [2]*mcp.ClientSession) {
	t.Helper()
	smtp := notifytest.NewSMTPServer(t)
	smtp.RefuseRecipient(refused)
	e := devEnv(t)
	e["SMTP_URL"] = "smtp://" + net.JoinHostPort(smtp.Host, strconv.Itoa(smtp.Port))
	_, keys := startDevAgents(t, e)
	base = e["BASE_URL"]
	for i, slug := range []string{"demo-a", "demo-b"} {
		agents[i] = agentSession(t, base+"/mcp/"+slug, bearer(keys[i]))
	}
	return base, agents
}

// callTool calls a tool that must succeed and returns its structured
// result, as JSON and decoded.
func callTool(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) (string, map[string]any) {
	t.Helper()
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", tool, err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return string(raw), out
}

// readUntilUndelivered reads the room until its view says a mail could
// not be delivered, and returns the room (the test fails after 20 s).
func readUntilUndelivered(t *testing.T, s *mcp.ClientSession, token string) map[string]any {
	t.Helper()
	var raw string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		var out map[string]any
		raw, out = callTool(t, s, "negotiation_read", map[string]any{"room_token": token})
		room := out["room"].(map[string]any)
		if _, ok := room["undelivered"]; ok {
			return room
		}
	}
	t.Fatalf("after 20 s, the agent's read says nothing of the refused mail:\n%s", raw)
	return nil
}

// roomPage signs email in and returns their dashboard's page of the
// account's latest room.
func roomPage(t *testing.T, base, email string) string {
	t.Helper()
	browser, _, _ := signIn(t, base, "/settings", email)
	get := func(path string) string {
		resp, err := browser.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s, GET %s: %d", email, path, resp.StatusCode)
		}
		return string(page)
	}
	list := get("/")
	m := regexp.MustCompile(`href="(/rooms/\d+\?side=[ab])"`).FindStringSubmatch(list)
	if m == nil {
		t.Fatalf("%s's rooms:\n%s", email, list)
	}
	return get(m[1])
}

var schemaWhere = json.RawMessage(`{"place":{"type":"enum","label":"Where","values":["office","video"]}}`)

// TestRefusedInvitationIsToldToTheOpener: the invitation emailed
// (invite_email) to an address the mail server refuses for good is in the
// opener's room view (undelivered, next, for_your_human, with the address
// the agent gave) and on their human's room page, instead of the agent
// waiting for a join that cannot come.
func TestRefusedInvitationIsToldToTheOpener(t *testing.T) {
	t.Parallel()
	const wrong = "pat@nowhere.example.test"
	base, agents := undeliveredEnv(t, wrong)
	_, opened := callTool(t, agents[0], "negotiation_open", map[string]any{"subject_schema": schemaWhere,
		"title": "Coffee?", "invite_email": wrong})
	token := opened["room_token"].(string)
	room := readUntilUndelivered(t, agents[0], token)
	got, _ := json.Marshal(room["undelivered"])
	var u []struct {
		What string `json:"what"`
		To   string `json:"to"`
		At   string `json:"at"`
	}
	if err := json.Unmarshal(got, &u); err != nil || len(u) != 1 || u[0].What != "invitation" || u[0].To != wrong || u[0].At == "" {
		t.Fatalf("undelivered: %s", got)
	}
	say := room["next"].(map[string]any)["say"].(string)
	human := room["for_your_human"].(string)
	if !strings.Contains(say, "invite_url") || !strings.Contains(say, wrong) || !strings.Contains(human, wrong) {
		t.Fatalf("next: %q\nfor_your_human: %q", say, human)
	}
	page := roomPage(t, base, "alice@example.test")
	if !strings.Contains(page, `data-undelivered="invitation"`) || !strings.Contains(page, wrong) {
		t.Fatalf("alice's room page says nothing of the refused invitation:\n%s", page)
	}
}

// TestRefusedRequestIsToldToItsSideOnly: the email asking a human to
// confirm, refused for good by the mail server, is in their agent's room
// view (naming the confirmation, not the address) and on their room page;
// the other side's agent and human see nothing of it.
func TestRefusedRequestIsToldToItsSideOnly(t *testing.T) {
	t.Parallel()
	base, agents := undeliveredEnv(t, "alice@example.test")
	_, opened := callTool(t, agents[0], "negotiation_open", map[string]any{"subject_schema": schemaWhere, "title": "Lunch?"})
	tokenA := opened["room_token"].(string)
	_, joined := callTool(t, agents[1], "negotiation_join", map[string]any{"invite": opened["invite_code"], "subject_schema": schemaWhere})
	tokenB := joined["room_token"].(string)
	_, asked := callTool(t, agents[0], "negotiation_cancel", map[string]any{"room_token": tokenA})
	id := asked["confirmation"].(map[string]any)["id"].(string)

	room := readUntilUndelivered(t, agents[0], tokenA)
	got, _ := json.Marshal(room["undelivered"])
	var u []map[string]string
	if err := json.Unmarshal(got, &u); err != nil || len(u) != 1 || len(u[0]) != 3 || u[0]["what"] != "confirmation_request" ||
		u[0]["confirmation_id"] != id || u[0]["at"] == "" {
		t.Fatalf("undelivered: %s, want the request %s, when, and no address", got, id)
	}
	say := room["next"].(map[string]any)["say"].(string)
	if !strings.Contains(say, "could not be delivered") || strings.Contains(say, "they were notified") {
		t.Fatalf("next: %q", say)
	}
	if human := room["for_your_human"].(string); !strings.Contains(human, "could not be delivered") {
		t.Fatalf("for_your_human: %q", human)
	}
	if page := roomPage(t, base, "alice@example.test"); !strings.Contains(page, `data-undelivered="confirmation_request"`) {
		t.Fatalf("alice's room page says nothing of the refused request:\n%s", page)
	}

	theirs, _ := callTool(t, agents[1], "negotiation_read", map[string]any{"room_token": tokenB})
	if strings.Contains(theirs, "undelivered") || strings.Contains(theirs, "could not be delivered") || strings.Contains(theirs, "alice@") {
		t.Fatalf("the other side's read tells of it: %s", theirs)
	}
	if page := roomPage(t, base, "bob@example.test"); strings.Contains(page, "data-undelivered") || strings.Contains(page, "alice@example.test") {
		t.Fatalf("bob's room page tells of it:\n%s", page)
	}
}
