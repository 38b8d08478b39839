package jobs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/wneessen/go-mail"
)

// keptMailer keeps the Message-IDs of what it is given.
type keptMailer struct{ ids []string }

func (m *keptMailer) Send(_ context.Context, msg *mail.Msg) error {
	m.ids = append(m.ids, strings.Join(msg.GetGenHeader(mail.HeaderMessageID), ""))
	return nil
}

// installationHookNotices answers WebhookDisabledMail for one installation.
type installationHookNotices struct{ installation string }

func (f installationHookNotices) WebhookDisabledMail(context.Context, WebhookDisabledArgs) (*WebhookDisabled, error) {
	return &WebhookDisabled{To: "ann@example.test", AccountName: "Alpha", URL: "https://hooks.example/x",
		SettingsURL: "https://taasky.example/accounts/alpha/webhooks", Now: time.Now(), Installation: f.installation}, nil
}

// TestWebhookNoticeMessageIDOutlivesTheDatabase: the "webhook turned off"
// mail's Message-ID is made as every notice's is (messageID): its job 12
// in another database (recreated, staging beside production, another
// installation) is another message, not "<webhook.12.2@taasky.invalid>"
// again, which a mailbox that saw that id already may drop as a copy; a
// retry of the same job keeps its id; its host is the service's.
func TestWebhookNoticeMessageIDOutlivesTheDatabase(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	send := func(installation string, attempt int) string {
		t.Helper()
		m := &keptMailer{}
		w := &WebhookDisabledWorker{Notices: installationHookNotices{installation}, Mailer: m, From: "taasky@example.test"}
		job := &river.Job[WebhookDisabledArgs]{JobRow: &rivertype.JobRow{ID: 12, CreatedAt: at, Attempt: attempt},
			Args: WebhookDisabledArgs{AccountID: 1, EndpointID: 2, UserID: 3, At: at}}
		if err := w.Work(ctx, job); err != nil || len(m.ids) != 1 {
			t.Fatalf("work: %v, %d sent", err, len(m.ids))
		}
		return m.ids[0]
	}
	prod, staging := send("6f1c0a52-0d0e-4f4e-9d6b-1d2f3a4b5c6d", 1), send("0b7e4d3c-2a19-4c8e-8f00-aa11bb22cc33", 1)
	if prod == staging {
		t.Errorf("job 12 of two databases: the same Message-ID %s", prod)
	}
	if retry := send("6f1c0a52-0d0e-4f4e-9d6b-1d2f3a4b5c6d", 2); retry != prod {
		t.Errorf("a retry got another Message-ID: %s, then %s", prod, retry)
	}
	if !strings.HasPrefix(prod, "<taasky.email.") || !strings.HasSuffix(prod, ".webhook_disabled@taasky.example>") {
		t.Errorf("Message-ID %s", prod)
	}
}
