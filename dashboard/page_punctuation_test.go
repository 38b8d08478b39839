package dashboard

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
)

// TestPageLinesInTheReadersPunctuation: a line the page joins itself (a
// room's note after its moment, a webhook turned off and why) puts the
// reader's colon between them (form.at), as every line of the catalog
// does: "… : …" in French, "…：…" in Japanese.
func TestPageLinesInTheReadersPunctuation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "fr"); err != nil {
		t.Fatal(err)
	}
	// Carol's agent, in alpha, sits in a room; she leaves the account.
	if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha", b.carol.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	agent, _, err := b.accounts.CreateAgent(b.ctx, "alpha", "Carol's agent", b.carol.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := b.rooms.Open(b.ctx, agent, app.OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.RemoveMemberAsOperator(b.ctx, "alpha", b.carol.Email); err != nil {
		t.Fatal(err)
	}
	alice := b.client(&b.alice)
	_, _, body := alice.get("/rooms/" + strconv.FormatInt(open.View.RoomID, 10))
	if want := " (UTC) : " + b.carol.Email + " n'est plus membre du compte"; !strings.Contains(html.UnescapeString(body), want) {
		t.Errorf("the room's note lacks %q:\n%s", want, body)
	}
	// An endpoint that failed for HookFailingFor is turned off, and why.
	e, _, err := b.hooks.CreateWebhook(b.ctx, b.alice.ID, "alpha", "https://hooks.example.test/in", []string{"room.opened"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	_, msgs, err := b.hooks.WebhookLog(b.ctx, b.alice.ID, "alpha", e.ID)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the endpoint's messages: %+v %v", msgs, err)
	}
	since := time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)
	for i, at := range []time.Time{since, since.Add(app.HookFailingFor + time.Minute)} {
		if err := b.hooks.RecordWebhook(b.ctx, jobs.WebhookAttempt{AccountID: b.alphaAccount.ID, MessageID: msgs[0].ID,
			JobID: int64(i + 1), Attempt: i + 1, At: at, StatusCode: 500, Error: "HTTP 500", Status: jobs.StatusRetrying}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, body = alice.get("/accounts/alpha/webhooks")
	if want := "désactivé depuis le mer. 28 oct. 2026, 00:31 (UTC) : HTTP 500"; !strings.Contains(html.UnescapeString(tags.ReplaceAllString(body, "")), want) {
		t.Errorf("the endpoint's state lacks %q:\n%s", want, body)
	}
}

// tags are a page's HTML tags, to read its text.
var tags = regexp.MustCompile(`<[^>]*>`)
