package dashboard

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// inviteMails starts River workers that send the invitation mails to an
// in-process SMTP server, and returns the server.
func (b *bundle) inviteMails(t *testing.T) *notifytest.SMTPServer {
	t.Helper()
	smtp := notifytest.NewSMTPServer(t)
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.MemberInviteWorker{Invitations: b.accounts, Deliveries: b.notify, From: "Taasky <taasky@example.test>",
		Mailer: notify.NewSMTP(notify.SMTPConfig{Host: smtp.Host, Port: smtp.Port})})
	rc, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{Workers: workers, FetchPollInterval: 200 * time.Millisecond,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(b.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Stop(b.ctx) })
	return smtp
}

var joinLink = regexp.MustCompile(`http://[^\s"<>]+/join/tj_[A-Za-z0-9_-]{43}`)

// joinLinkIn reads an invitation mail (notify.Parse) and returns it with
// the link its text holds, which its HTML must hold too.
func joinLinkIn(t *testing.T, m notifytest.Mail) (*notify.Parsed, string) {
	t.Helper()
	p, err := notify.Parse(m.Data)
	if err != nil {
		t.Fatal(err)
	}
	link := joinLink.FindString(p.Text)
	if link == "" || !strings.Contains(p.HTML, `href="`+link+`"`) {
		t.Fatalf("no invitation link in both parts of the mail:\n%s\n%s", p.Text, p.HTML)
	}
	return p, link
}
