package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/bench"
	"github.com/taasky/taasky/internal/pgtest"
)

var (
	devAgent    = regexp.MustCompile(`MCP URL: (\S+)\s+Key:\s+(\S+)`)
	outboxEntry = regexp.MustCompile(`href="/dev/outbox/(\d+)"`)
	formField   = regexp.MustCompile(`name="(_csrf|subject_hash)" value="([^"]*)"`)
)

// TestDevNewcomerPath follows docs/agents.md from what `taasky dev`
// prints: the two demo agents negotiate over MCP with the printed URLs and
// keys, each human confirms through the one-tap link of the mail kept in
// the dev outbox, and the room is agreed.
func TestDevNewcomerPath(t *testing.T) {
	t.Parallel()
	addr, err := bench.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	p := start(t, env{"DATABASE_URL": pgtest.NewDSN(t), "LISTEN_ADDR": addr, "BASE_URL": base,
		"XDG_CONFIG_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}, "dev")
	out := p.waitStdout(t, "Stop with Ctrl-C.")
	found := devAgent.FindAllStringSubmatch(out, -1)
	if len(found) != 2 {
		t.Fatalf("dev printed %d agents:\n%s", len(found), out)
	}
	ctx := context.Background()
	lat := &bench.Latencies{}
	a, err := bench.Connect(ctx, found[0][1], found[0][2], http.DefaultTransport, lat, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := bench.Connect(ctx, found[1][1], found[1][2], http.DefaultTransport, lat, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	schema := map[string]any{"meeting_time": map[string]any{"type": "timerange", "label": "Meeting time"}}
	var open struct {
		RoomToken string `json:"room_token"`
		InviteURL string `json:"invite_url"`
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Call(ctx, "negotiation_open", map[string]any{"subject_schema": schema, "title": "Kick-off"}, &open))
	var join struct {
		RoomToken string `json:"room_token"`
	}
	must(b.Call(ctx, "negotiation_join", map[string]any{"invite_url": open.InviteURL, "subject_schema": schema}, &join))
	must(a.Call(ctx, "negotiation_propose", map[string]any{"room_token": open.RoomToken, "verdict": "offer",
		"subject": map[string]any{"meeting_time": map[string]any{"start": "2026-12-03T10:00:00+01:00", "end": "2026-12-03T10:30:00+01:00"}}}, nil))
	var read struct {
		Room struct {
			State        string `json:"state"`
			TermsOnTable struct {
				Options []struct {
					SubjectHash string `json:"subject_hash"`
				} `json:"options"`
			} `json:"terms_on_table"`
		} `json:"room"`
	}
	must(b.Call(ctx, "negotiation_read", map[string]any{"room_token": join.RoomToken}, &read))
	hash := read.Room.TermsOnTable.Options[0].SubjectHash
	seen := map[string]bool{}
	for _, side := range []struct {
		agent *bench.Agent
		token string
	}{{b, join.RoomToken}, {a, open.RoomToken}} {
		must(side.agent.Call(ctx, "negotiation_respond", map[string]any{"room_token": side.token, "verdict": "approve", "subject_hash": hash}, nil))
		confirmFromOutbox(t, base, seen)
	}
	must(a.Call(ctx, "negotiation_read", map[string]any{"room_token": open.RoomToken}, &read))
	if read.Room.State != "agreed" {
		t.Fatalf("the room is %s, not agreed", read.Room.State)
	}
}

// confirmFromOutbox finds the newest one-tap link in the dev outbox not
// used yet, opens it and confirms, as the human would.
func confirmFromOutbox(t *testing.T, base string, used map[string]bool) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	web := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	fetch := func(u string) string {
		resp, err := web.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	link := ""
	for end := time.Now().Add(20 * time.Second); link == "" && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		for _, m := range outboxEntry.FindAllStringSubmatch(fetch(base+"/dev/outbox"), -1) {
			if l := bench.OneTapURL([]byte(fetch(base + "/dev/outbox/" + m[1] + "/raw"))); l != "" && !used[l] {
				link = l
				break
			}
		}
	}
	if link == "" {
		t.Fatal("no confirmation request reached the dev outbox")
	}
	used[link] = true
	form := url.Values{"answer": {"confirm"}}
	for _, m := range formField.FindAllStringSubmatch(fetch(link), -1) {
		form.Set(m[1], m[2])
	}
	resp, err := web.Post(link, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `data-result="applied"`) {
		t.Fatalf("the one-tap confirm answered %d:\n%s", resp.StatusCode, body)
	}
}
