package notify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// linkFinder runs test/mail-links (linkify-it) over texts: the links it
// finds in each. Without its node_modules the test is skipped, unless in
// CI, whose .ci/run installs them.
func linkFinder(t *testing.T) func(texts []string) [][]struct{ Finder, Text, URL string } {
	t.Helper()
	dir := filepath.Join("..", "test", "mail-links")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "linkify-it")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("test/mail-links has no node_modules: .ci/run must run npm ci there")
		}
		t.Skip("run `npm ci --prefix test/mail-links` to include linkify-it")
	}
	return func(texts []string) [][]struct{ Finder, Text, URL string } {
		in, _ := json.Marshal(texts)
		cmd := exec.Command("node", "links.mjs")
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("links.mjs: %v", err)
		}
		var links [][]struct{ Finder, Text, URL string }
		if err := json.Unmarshal(out, &links); err != nil {
			t.Fatal(err)
		}
		return links
	}
}

var tags = regexp.MustCompile(`<[^>]*>`)

// TestLinksInMailAreTheRealOnes: every link a mail client's autolinker
// finds in the text part of a mail, and in the words of its HTML part, of
// every kind in every language, is one of the links Taasky put there,
// whole: a sentence's punctuation or next word glued to a link makes it
// another one. The mails go through the SMTP mailer to a real server;
// links are found with linkify-it (test/mail-links).
func TestLinksInMailAreTheRealOnes(t *testing.T) {
	find := linkFinder(t)
	srv := notifytest.NewSMTPServer(t)
	mailer := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, Timeout: 5 * time.Second})
	defer mailer.Close()
	kinds := []notify.Kind{notify.KindRequest, notify.KindReminder, notify.KindAgreed, notify.KindClosed, notify.KindNoDeal,
		notify.KindInvite, notify.KindMemberInvite, notify.KindWebhookDisabled, notify.KindTurn, notify.KindTest}
	langs := []string{"en", "fr", "de", "es", "ja"}
	real := map[string]bool{}
	var msgs []*notify.Message
	for _, lang := range langs {
		for _, kind := range kinds {
			start := time.Date(2026, 10, 14, 10, 0, 0, 0, time.UTC)
			m := &notify.Message{Kind: kind, ID: "taasky.email." + lang + "." + string(kind), To: "bob@example.com", Lang: lang,
				Now: time.Date(2026, 10, 12, 10, 0, 0, 0, time.UTC), RoomID: 9, RoomURL: "https://taasky.example/rooms/9",
				Title: "Venue", Them: "Alice", Agent: "Carol", Role: "member", Verdict: negotiation.VerdictApprove,
				OneTapURL: "https://taasky.example/c/ot_real", InviteURL: "https://taasky.example/i/inv_real",
				Endpoint: "https://hooks.example/taasky", Detail: "503 Service Unavailable",
				Deadline: time.Date(2026, 10, 26, 10, 0, 0, 0, time.UTC), ExpiresAt: time.Date(2026, 10, 15, 10, 0, 0, 0, time.UTC),
				UnsubscribeURL: "https://taasky.example/unsubscribe/un_real", SettingsURL: "https://taasky.example/settings",
				Receipt: "eyJ.x.y", NoDeal: []string{"Fee"},
				Card: &negotiation.Card{Options: []negotiation.CardOption{{Fields: []negotiation.CardField{
					{Name: "t", Label: "Meeting time", Type: negotiation.TypeTimerange, Values: []negotiation.Value{{Start: start, End: start.Add(time.Hour)}}},
				}}}}}
			msgs = append(msgs, m)
		}
	}
	for _, u := range []string{"https://taasky.example/rooms/9", "https://taasky.example/c/ot_real", "https://taasky.example/i/inv_real",
		"https://hooks.example/taasky", "https://taasky.example/unsubscribe/un_real", "https://taasky.example/settings",
		"https://taasky.example/verify", "mailto:bob@example.com"} {
		real[u] = true
	}
	for _, m := range msgs {
		msg, err := notify.Email(m, "Taasky <taasky@taasky.example>")
		if err != nil {
			t.Fatal(err)
		}
		if err := mailer.Send(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	var texts, where []string
	for i, raw := range srv.Wait(t, len(msgs), 10*time.Second) {
		p, err := notify.Parse(raw.Data)
		if err != nil {
			t.Fatal(err)
		}
		name := msgs[i].Lang + " " + string(msgs[i].Kind)
		texts = append(texts, p.Text, tags.ReplaceAllString(p.HTML, " "))
		where = append(where, name+" (text part)", name+" (HTML part's words)")
	}
	for i, links := range find(texts) {
		for _, l := range links {
			if !real[l.URL] {
				t.Errorf("%s: %s links %q as %q, no link of the mail's", where[i], l.Finder, l.Text, l.URL)
			}
		}
	}
}
