package dashboard

import (
	"errors"
	"strings"
	"testing"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/notify"
)

// TestDeliveryLogSaysWhyInTheReadersWords: why a delivery was skipped, or
// its device removed, is Taasky's own sentence: the log shows it in the
// reader's language (a mail server's answer stays as it was).
func TestDeliveryLogSaysWhyInTheReadersWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "de"); err != nil {
		t.Fatal(err)
	}
	// A test push to a device that is no longer hers: the service's own
	// reason for skipping it.
	d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicTest, UserID: b.alice.ID}, JobID: 1, Attempt: 1, Channel: jobs.ChannelPush, SubscriptionID: 999}
	_, err := b.notify.Notification(b.ctx, d)
	var skip *jobs.SkipError
	if !errors.As(err, &skip) {
		t.Fatalf("a push to no device: %v", err)
	}
	outcomes := []jobs.Outcome{
		{Status: jobs.StatusSkipped, Detail: skip.Reason},
		{Status: jobs.StatusGone, Detail: notify.ErrGone.Error()},
		{Status: jobs.StatusFailed, Detail: "550 5.1.1 mailbox unavailable"},
	}
	for i, o := range outcomes {
		d.JobID = int64(i + 1)
		if err := b.notify.Record(b.ctx, d, o); err != nil {
			t.Fatal(err)
		}
	}
	_, _, body := b.client(&b.alice).get("/settings")
	for _, want := range []string{"das Gerät wurde abgemeldet", "das Web-Push-Abonnement besteht nicht mehr", "550 5.1.1 mailbox unavailable"} {
		if !strings.Contains(body, want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	for _, english := range []string{skip.Reason, notify.ErrGone.Error()} {
		if strings.Contains(body, english) {
			t.Errorf("the log says %q in English to a German reader", english)
		}
	}
}
