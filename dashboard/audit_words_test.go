package dashboard

import (
	"html"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
)

// TestAuditLogInTheReadersWordsAndZone: the audit log's details are
// Taasky's words for what they name (a role, an answer's result) in the
// reader's language, a moment in the reader's zone, named; an entry of an
// operator's, or of Taasky's own, says so in those words, not in the
// English word stored with it ("operator").
func TestAuditLogInTheReadersWordsAndZone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "ja"); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.SetUserTimeZone(b.ctx, b.alice.ID, "Asia/Kolkata"); err != nil {
		t.Fatal(err)
	}
	b.agreed() // alice's answer: confirmation.answered, result applied
	if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha", b.carol.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.ChangeRoleAsOperator(b.ctx, "alpha", b.carol.Email, app.MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	// An endpoint that fails for HookFailingFor is turned off by Taasky.
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
	since := time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC) // 06:00 in Kolkata
	for i, at := range []time.Time{since, since.Add(app.HookFailingFor + time.Minute)} {
		if err := b.hooks.RecordWebhook(b.ctx, jobs.WebhookAttempt{AccountID: b.alphaAccount.ID, MessageID: msgs[0].ID,
			JobID: int64(i + 1), Attempt: i + 1, At: at, StatusCode: 500, Error: "HTTP 500", Status: jobs.StatusRetrying}); err != nil {
			t.Fatal(err)
		}
	}

	_, _, body := b.client(&b.alice).get("/accounts/alpha/settings")
	rows := map[string]string{}
	for _, row := range strings.Split(body, "<tr data-audit=")[1:] {
		action, _, _ := strings.Cut(row, ">")
		rows[strings.Trim(action, `"`)] = html.UnescapeString(row)
	}
	for action, want := range map[string][]string{
		"confirmation.answered": {"結果：適用済み;"},
		"member.added":          {"<td>運営者</td>", "役割：メンバー;"},
		"member.role_changed":   {"<td>運営者</td>", "変更前：メンバー;", "変更後：管理者;"},
		"webhook.disabled":      {"<td>Taasky</td>", "失敗し始めた日時：2026年10月25日(日) 6:00 (Asia/Kolkata);", "実行者：Taasky;"},
	} {
		row, ok := rows[action]
		if !ok {
			t.Errorf("no %s entry:\n%s", action, body)
			continue
		}
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("%s lacks %q:\n%s", action, w, row)
			}
		}
		for _, english := range []string{"operator", "applied", ">member", ">admin", "2026-10-25T", "taasky;"} {
			if strings.Contains(row, english) {
				t.Errorf("%s shows %q to a Japanese reader:\n%s", action, english, row)
			}
		}
	}
}
