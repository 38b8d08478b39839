package dashboard

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// inviteMails starts River workers that send the invitation mails to an
// in-process SMTP server, and returns the server. They fetch only those
// mails: a client that fetched the other jobs (an account deletion's,
// workDeletions') failed them as kinds it does not know, and River's
// backoff (16 s at the second try) outlasted the test's wait.
func (b *bundle) inviteMails(t *testing.T) *notifytest.SMTPServer {
	t.Helper()
	smtp := notifytest.NewSMTPServer(t)
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.MemberInviteWorker{Invitations: b.accounts, Deliveries: b.notify, From: "Taasky <taasky@example.test>",
		Mailer: notify.NewSMTP(notify.SMTPConfig{Host: smtp.Host, Port: smtp.Port})})
	rc, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{Workers: workers, FetchPollInterval: 200 * time.Millisecond,
		Queues: jobs.Queues(2, 2), FetchOnlyKnownKinds: true})
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

// firstJoinPath waits for the first invitation mail smtp receives and
// returns the path of its link (/join/…).
func firstJoinPath(t *testing.T, smtp *notifytest.SMTPServer) string {
	t.Helper()
	for i := 0; i < 200 && len(smtp.Mails()) < 1; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if len(smtp.Mails()) != 1 {
		t.Fatalf("%d mails", len(smtp.Mails()))
	}
	_, link := joinLinkIn(t, smtp.Mails()[0])
	return link[strings.Index(link, "/join/"):]
}

// TestMemberInvitationInTheReadersWords: an invitation to join an account
// is written in the invitee's language and zone when they are a user
// already, else in the inviter's language (and UTC).
func TestMemberInvitationInTheReadersWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	smtp := b.inviteMails(t)
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "fr"); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.SetUserLanguage(b.ctx, b.bob.ID, "de"); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.SetUserTimeZone(b.ctx, b.bob.ID, "Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"bob@example.test", "newcomer@example.test"} {
		if _, err := b.accounts.Invite(b.ctx, b.alice.ID, "alpha", to, app.MemberRoleMember); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 200 && len(smtp.Mails()) < 2; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	said := map[string]string{}
	for _, m := range smtp.Mails() {
		p, _ := joinLinkIn(t, m)
		said[m.To[0]] = p.Subject + "\n" + p.Text
	}
	if s := said["bob@example.test"]; !strings.Contains(s, "lädt Sie ein") || !strings.Contains(s, "(Europe/Berlin)") {
		t.Errorf("to bob (de, Europe/Berlin):\n%s", s)
	}
	if s := said["newcomer@example.test"]; !strings.Contains(s, "vous invite à rejoindre") || !strings.Contains(s, "(UTC)") {
		t.Errorf("to a newcomer, from alice (fr):\n%s", s)
	}
}
