package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// notifyBundle is a rooms bundle whose notifications are worked for real:
// River workers on the test's database, an SMTP server and a push endpoint
// in the process.
type notifyBundle struct {
	*roomsBundle
	svc  *Notifications
	smtp *notifytest.SMTPServer
	push *notifytest.PushEndpoint
	rc   *river.Client[pgx.Tx]
	// hooks is the webhooks service, its jobs worked with retries after
	// 200 ms (fast) and its attempts timed by the rooms' clock; loopback
	// endpoints are allowed.
	hooks *Webhooks
}

// fastRetry retries a failed job after 200 ms (River's default waits
// attempt⁴ seconds).
type fastRetry struct{}

func (fastRetry) NextRetry(*rivertype.JobRow) time.Time {
	return time.Now().Add(200 * time.Millisecond)
}

func setupNotify(t testing.TB) *notifyBundle { return setupNotifyWith(t, true) }

// setupNotifyWith: fast (tests) fetches jobs every 5 ms and retries after
// 200 ms; otherwise the production settings apply (benchmarks): the fetch
// cooldown of cmd/taasky (jobs.FetchCooldown), River's retries.
func setupNotifyWith(t testing.TB, fast bool) *notifyBundle {
	t.Helper()
	var retry river.ClientRetryPolicy
	if fast {
		retry = fastRetry{}
	}
	return setupNotifyRetry(t, fast, retry)
}

// setupNotifyRetry is setupNotifyWith with retry as River's retry policy
// (nil: River's).
func setupNotifyRetry(t testing.TB, fast bool, retry river.ClientRetryPolicy) *notifyBundle {
	t.Helper()
	rb := setupRoomsB(t)
	// The rooms' clock starts now: River schedules by the real clock.
	rb.clock.Store(time.Now().UTC().UnixNano())
	svc, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: rb.rooms.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		t.Fatal(err)
	}
	nb := &notifyBundle{roomsBundle: rb, svc: svc, smtp: notifytest.NewSMTPServer(t), push: notifytest.NewPushEndpoint(t, pub)}
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.EmailWorker{Deliveries: svc, From: "Taasky <taasky@example.test>",
		Mailer: notify.NewSMTP(notify.SMTPConfig{Host: nb.smtp.Host, Port: nb.smtp.Port, Timeout: 5 * time.Second})})
	share := jobs.NewOutboundShare(jobs.OutboundPerOwner) // as cmd/taasky's workers share it
	river.AddWorker(workers, &jobs.PushWorker{Deliveries: svc, Share: share, Pusher: &notify.Pusher{
		VAPID: notify.VAPID{PublicKey: pub, PrivateKey: priv, Subscriber: "taasky@example.test"}, AllowInternal: true}})
	river.AddWorker(workers, &jobs.InviteWorker{Invitations: svc, From: "Taasky <taasky@example.test>",
		Mailer: notify.NewSMTP(notify.SMTPConfig{Host: nb.smtp.Host, Port: nb.smtp.Port, Timeout: 5 * time.Second})})
	// An account's invitations, mailed once a test turns teams on.
	river.AddWorker(workers, &jobs.MemberInviteWorker{Invitations: rb.acc, Deliveries: svc, From: "Taasky <taasky@example.test>",
		Mailer: notify.NewSMTP(notify.SMTPConfig{Host: nb.smtp.Host, Port: nb.smtp.Port, Timeout: 5 * time.Second})})
	nb.hooks = NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, BaseURL: rb.rooms.baseURL})
	hook := &jobs.WebhookWorker{Webhooks: nb.hooks, Sender: notify.NewWebhookSender(true, nil), Now: rb.rooms.now, Share: share}
	if fast {
		hook.Backoff = []time.Duration{200 * time.Millisecond}
	}
	river.AddWorker(workers, hook)
	river.AddWorker(workers, &jobs.WebhookDisabledWorker{Notices: nb.hooks, Deliveries: svc, From: "Taasky <taasky@example.test>",
		Mailer: notify.NewSMTP(notify.SMTPConfig{Host: nb.smtp.Host, Port: nb.smtp.Port, Timeout: 5 * time.Second})})
	cfg := &river.Config{
		Workers: workers, Queues: jobs.Queues(20, 20),
		FetchOnlyKnownKinds: true, // the sweep is called by the tests, with the rooms' clock
		TestOnly:            true, Logger: slog.New(slog.DiscardHandler),
		FetchCooldown: jobs.FetchCooldown,
	}
	if fast {
		cfg.FetchCooldown, cfg.FetchPollInterval = 5*time.Millisecond, 100*time.Millisecond
	}
	cfg.RetryPolicy = retry
	rc, err := river.NewClient(riverpgxv5.New(rb.pool), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rc.Stop(ctx)
	})
	nb.rc = rc
	return nb
}

// mailTo waits for the n-th message to addr and parses it.
func (nb *notifyBundle) mailTo(t *testing.T, addr string, n int) *notify.Parsed {
	t.Helper()
	end := time.Now().Add(15 * time.Second)
	for time.Now().Before(end) {
		var got []notifytest.Mail
		for _, m := range nb.smtp.Mails() {
			if len(m.To) == 1 && m.To[0] == addr {
				got = append(got, m)
			}
		}
		if len(got) >= n {
			p, err := notify.Parse(got[n-1].Data)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no message %d to %s; log: %+v", n, addr, nb.log(t, addr))
	return nil
}

// settle waits until every notification job that is due has finished
// (completed, cancelled or discarded: sent, skipped or given up), so that a
// send the test then finds missing, or one too many, was not merely late.
// Jobs scheduled for later than a second from now (the next reminder) are
// not waited for, but a push waiting for a burst to end
// (jobs.PushCoalesce) is. It fails the test after 15 s.
func (nb *notifyBundle) settle(t *testing.T) {
	t.Helper()
	kinds := []string{jobs.EmailArgs{}.Kind(), jobs.PersonReminderArgs{}.Kind(), jobs.PushArgs{}.Kind(), jobs.InviteArgs{}.Kind()}
	end := time.Now().Add(15 * time.Second)
	for {
		var due int
		if err := nb.pool.QueryRow(nb.ctx, `SELECT count(*) FROM river_job WHERE kind = ANY($1)
			AND state NOT IN ('completed', 'cancelled', 'discarded')
			AND scheduled_at < now() + interval '1 second' + CASE WHEN kind = $2 THEN $3::interval ELSE '0s' END`,
			kinds, jobs.PushArgs{}.Kind(), jobs.PushCoalesce).Scan(&due); err != nil {
			t.Fatal(err)
		}
		if due == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%d notification jobs still due after 15 s", due)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (nb *notifyBundle) log(t *testing.T, email string) []Delivery {
	t.Helper()
	u, err := NewAccounts(nb.pool).UserByEmail(nb.ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := nb.svc.DeliveryLog(nb.ctx, u.ID, 0, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func (nb *notifyBundle) subscribe(t *testing.T, email, name string) *notifytest.Device {
	t.Helper()
	u, err := NewAccounts(nb.pool).UserByEmail(nb.ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	d := nb.push.NewDevice(t, name)
	if _, err := nb.svc.Subscribe(nb.ctx, u.ID, PushSubscriptionInput{Endpoint: d.Endpoint, P256dh: d.P256dh, Auth: d.Auth, Device: name}); err != nil {
		t.Fatal(err)
	}
	return d
}

// withdrawAsked opens and joins a room in which a's agent asks its human
// to withdraw: a confirmation pending for side a.
func (nb *notifyBundle) withdrawAsked(t *testing.T) (*ConfirmationView, *View) {
	t.Helper()
	ta, _ := nb.openJoined(t, OpenInput{}, "")
	cv, v, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, "cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	return cv, v
}

var oneTapLink = regexp.MustCompile(`http://127\.0\.0\.1:8080/c/(ot_[A-Za-z0-9_-]{43})`)

// Limits with numbers found nowhere else: no message may hold them, in any
// form (UTC or the recipient's time, either decimal mark).
const (
	aLimits = `{"fee":{"max":{"amount":"876.54","currency":"EUR"}},"meeting_time":{"min":"2026-10-14T06:17:00Z","max":"2026-10-14T21:43:00Z"}}`
	bLimits = `{"fee":{"max":{"amount":"19.37","currency":"EUR"}},"meeting_time":{"min":"2026-10-14T07:13:00Z","max":"2026-10-14T19:47:00Z"}}`
)

// randomParts are the random strings a message carries (MIME boundaries,
// Message-IDs, the tokens of one-tap and unsubscribe links), which now and
// then hold a needle's digits: they are taken out before the search.
var randomParts = regexp.MustCompile(`boundary="?[^";\s]+"?|<[^<>@\s]+@[^<>\s]+>|/(c|unsubscribe)/[A-Za-z0-9_.=-]+`)

var limitNeedles = []string{"876.54", "876,54", "87654", "19.37", "19,37", "1937",
	"06:17", "08:17", "21:43", "23:43", "07:13", "09:13", "19:47", "21:47", "0617", "2143", "0713", "1947"}

// clockOffLimits sets the rooms' clock back, a second at a time, while its
// minute is one of the limits' clock needles' (the time zones here differ
// by whole hours) or its minute and second spell one ("0713" at 00:07:13,
// in a calendar's DTSTAMP:20261205T000713Z): the moments a message shows
// from it (deadline, expiry, the calendar's stamp) then never read as a
// limit. Jobs scheduled from it run at once, as they would a minute later.
func (nb *notifyBundle) clockOffLimits() {
	now := nb.rooms.now()
	for slices.ContainsFunc(limitNeedles, func(n string) bool {
		return strings.HasSuffix(n, now.Format(":04")) || n == now.Format("0405")
	}) {
		now = now.Add(-time.Second)
	}
	nb.clock.Store(now.UnixNano())
}

// assertNoLimits fails the test when a message anyone received (mail
// headers, decoded parts and attachments; push payloads) holds a limit.
// The Date header is the real clock's, and skipped: at 09:13 it reads as one.
func (nb *notifyBundle) assertNoLimits(t *testing.T) {
	t.Helper()
	var all [][]byte
	for _, m := range nb.smtp.Mails() {
		p, err := notify.Parse(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		// The headers and the decoded parts, not the raw bytes: MIME
		// boundaries are random hex, and hold "1947" now and then.
		for k, vs := range p.Header {
			if k != "Date" {
				all = append(all, []byte(k+": "+strings.Join(vs, ", ")))
			}
		}
		all = append(all, []byte(p.Subject), []byte(p.Text), []byte(p.HTML))
		for _, a := range p.Attachments {
			all = append(all, a.Data)
		}
	}
	for _, p := range nb.push.Pushes() {
		all = append(all, p.Plaintext)
	}
	for _, b := range all {
		b = randomParts.ReplaceAll(b, []byte("[random]"))
		for _, needle := range limitNeedles {
			if bytes.Contains(b, []byte(needle)) {
				t.Errorf("a message holds %q (a limit):\n%s", needle, b)
			}
		}
	}
}

// offerWithLimits opens a room titled title by a with aLimits, joins it by b
// with bLimits, and has a offer terms; it returns both room tokens and a's
// view after the offer.
func (nb *notifyBundle) offerWithLimits(t *testing.T, title string) (string, string, *View) {
	t.Helper()
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Limits: json.RawMessage(aLimits), Title: title})
	if err != nil {
		t.Fatal(err)
	}
	j, err := nb.rooms.Join(nb.ctx, nb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema, Limits: json.RawMessage(bLimits)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := nb.rooms.Propose(nb.ctx, nb.a, open.RoomToken, MoveInput{Verdict: "offer", Subject: meeting(10, "20.00")})
	if err != nil {
		t.Fatal(err)
	}
	return open.RoomToken, j.RoomToken, v
}

// TestRequestByEmailAndPushThenOneTap: an agent's approve request reaches
// its human by email and push, each with a one-tap link; showing the card
// changes nothing, answering applies it; once both humans did, the room is
// agreed and both get the agreed terms with an .ics. No message to anyone
// holds a limit.
func TestRequestByEmailAndPushThenOneTap(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.clockOffLimits()
	paris, _ := time.LoadLocation("Europe/Paris")
	acc := NewAccounts(nb.pool)
	ub, _ := acc.UserByEmail(nb.ctx, "beta@example.test")
	if err := acc.SetUserTimeZone(nb.ctx, ub.ID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	phone := nb.subscribe(t, "beta@example.test", "Beta's phone")

	ta, tb, v := nb.offerWithLimits(t, "Quarterly review")
	hash := v.TermsOnTable.Options[0].SubjectHash
	start := time.Now()
	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, "approve", hash); err != nil {
		t.Fatal(err)
	}

	// The email: multipart, b's labels and time zone, b's own flag by bound
	// name, the one-tap link and the room's link; a request has no
	// List-Unsubscribe.
	mail := nb.mailTo(t, "beta@example.test", 1)
	t.Logf("request email accepted %s after the respond call", time.Since(start))
	if !strings.Contains(mail.Subject, "Approve these terms?") || !strings.Contains(mail.Subject, "Quarterly review") {
		t.Errorf("subject %q", mail.Subject)
	}
	if mail.Header.Get("List-Unsubscribe") != "" {
		t.Error("a request carries List-Unsubscribe")
	}
	for _, want := range []string{"Meeting time: Wed 14 Oct 2026, 12:00–12:30 (Europe/Paris, UTC+02:00)", "Fee: EUR\u00a020.00",
		"outside your limits: above your maximum", "Your agent, agent, asks you to approve these terms in “Quarterly review” with ALPHA.",
		"http://127.0.0.1:8080/rooms/" + itoa64(v.RoomID)} {
		if !strings.Contains(mail.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, mail.Text)
		}
	}
	if !strings.Contains(mail.HTML, "above your maximum") || !strings.Contains(mail.HTML, "12:00–12:30") {
		t.Errorf("html:\n%s", mail.HTML)
	}
	m := oneTapLink.FindStringSubmatch(mail.Text)
	if m == nil || !strings.Contains(mail.HTML, m[0]) {
		t.Fatalf("no one-tap link in both parts:\n%s", mail.Text)
	}
	token := m[1]

	// The push: verified VAPID, decrypted, urgent, with its own one-tap link.
	pushes := nb.push.Wait(t, 1, 10*time.Second)
	var pp notify.PushPayload
	if err := json.Unmarshal(pushes[0].Plaintext, &pp); err != nil {
		t.Fatalf("push payload %q: %v", pushes[0].Plaintext, err)
	}
	if pushes[0].Device != phone.Name || pushes[0].Urgency != "high" || pushes[0].TTL != "86400" ||
		!oneTapLink.MatchString(pp.URL) || pp.URL == m[0] || pp.Kind != notify.KindRequest ||
		!strings.Contains(pp.Title, "asks you to approve") || !strings.Contains(pp.Body, "Quarterly review") {
		t.Errorf("push %+v (urgency %s, ttl %s)", pp, pushes[0].Urgency, pushes[0].TTL)
	}

	// Showing the card (GET /c/{token}) changes nothing, however often.
	before, _ := nb.rooms.Read(nb.ctx, nb.b, tb)
	for range 2 {
		card, err := nb.rooms.OneTapCard(nb.ctx, token)
		if err != nil || card.Confirmation == nil || card.Card == nil || card.TimeZone.String() != paris.String() {
			t.Fatalf("one-tap card: %v %+v", err, card)
		}
	}
	after, _ := nb.rooms.Read(nb.ctx, nb.b, tb)
	if after.Approvals.You != nil || after.PendingConfirmation == nil || len(after.Rounds) != len(before.Rounds) {
		t.Fatalf("showing the card changed the room: %+v", after)
	}
	// Answering it (POST) applies the approval.
	d, err := nb.rooms.DecideOneTap(nb.ctx, token, hash, true)
	if err != nil || d.Result != negotiation.ResultApplied || d.State != negotiation.StateAwaiting {
		t.Fatalf("one-tap answer: %v %+v", err, d)
	}

	// a's human answers from their email too: the room is agreed.
	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, "approve", hash); err != nil {
		t.Fatal(err)
	}
	ma := oneTapLink.FindStringSubmatch(nb.mailTo(t, "alpha@example.test", 1).Text)
	if ma == nil {
		t.Fatal("no one-tap link for a")
	}
	if d, err := nb.rooms.DecideOneTap(nb.ctx, ma[1], hash, true); err != nil || d.State != negotiation.StateAgreed {
		t.Fatalf("a's one-tap answer: %v %+v", err, d)
	}

	// Both humans get the agreed terms, with an .ics at exactly those
	// moments (UTC), the same signed receipt, and a List-Unsubscribe link.
	var receipts []string
	for _, addr := range []string{"alpha@example.test", "beta@example.test"} {
		n := 2
		agreed := nb.mailTo(t, addr, n)
		if !strings.HasPrefix(agreed.Subject, "Agreed — Quarterly review") || agreed.Header.Get("List-Unsubscribe") == "" {
			t.Errorf("%s: agreed mail %q, List-Unsubscribe %q", addr, agreed.Subject, agreed.Header.Get("List-Unsubscribe"))
		}
		if len(agreed.Attachments) != 2 || !strings.HasPrefix(agreed.Attachments[0].ContentType, "text/calendar") ||
			!strings.HasPrefix(agreed.Attachments[1].ContentType, "application/jose") || !strings.HasSuffix(agreed.Attachments[1].Name, ".jws") {
			t.Fatalf("%s: attachments %+v", addr, agreed.Attachments)
		}
		if _, err := testReceiptKeys(t).Verify(string(agreed.Attachments[1].Data)); err != nil {
			t.Errorf("%s: the attached receipt: %v", addr, err)
		}
		if !strings.Contains(agreed.Text, "The signed receipt of this agreement is attached") {
			t.Errorf("%s: the mail does not say a receipt is attached:\n%s", addr, agreed.Text)
		}
		receipts = append(receipts, string(agreed.Attachments[1].Data))
		// The event's UID and the Message-ID come from the installation's
		// id, not from this database's counters alone.
		if uid := regexp.MustCompile(`UID:taasky-room-([a-z2-7]{26})-meeting_time-0@`).FindStringSubmatch(string(agreed.Attachments[0].Data)); uid == nil {
			t.Errorf("%s: the .ics UID is not unique to the installation:\n%s", addr, agreed.Attachments[0].Data)
		}
		if !regexp.MustCompile(`^<taasky\.email\.[a-z2-7]{26}\.agreed@`).MatchString(agreed.Header.Get("Message-Id")) {
			t.Errorf("%s: Message-ID %s", addr, agreed.Header.Get("Message-Id"))
		}
		ics := string(agreed.Attachments[0].Data)
		for _, want := range []string{"BEGIN:VCALENDAR\r\n", "DTSTART:20261014T100000Z\r\n", "DTEND:20261014T103000Z\r\n",
			"SUMMARY:Quarterly review\r\n", "END:VCALENDAR\r\n"} {
			if !strings.Contains(ics, want) {
				t.Errorf("%s: .ics lacks %q:\n%s", addr, want, ics)
			}
		}
	}
	if receipts[0] != receipts[1] {
		t.Error("the two humans got different receipts")
	}
	nb.push.Wait(t, 2, 10*time.Second) // b's phone: the agreed notice

	nb.assertNoLimits(t)

	// The delivery log says what went where (a worker records a send just
	// after the server accepted it: wait for the last ones).
	var logB []Delivery
	sent := map[string]int{}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && (sent["push/agreed"] == 0 || sent["email/agreed"] == 0); time.Sleep(20 * time.Millisecond) {
		logB, sent = nb.log(t, "beta@example.test"), map[string]int{}
		for _, d := range logB {
			if d.Status == jobs.StatusSent {
				sent[string(d.Channel)+"/"+string(d.Topic)]++
			}
		}
	}
	if sent["email/request"] != 1 || sent["push/request"] != 1 || sent["email/agreed"] != 1 || sent["push/agreed"] != 1 {
		t.Errorf("b's delivery log: %+v", logB)
	}
	for _, d := range logB {
		if d.RoomID != 0 && d.RoomTitle != "Quarterly review" {
			t.Errorf("a line of the log does not name its room by title: %+v", d)
		}
	}
	nb.checkClean(t)
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestSMTPFailureRetriesAndSendsOnce: a server that refuses the first two
// attempts gets the mail on the third, once.
func TestSMTPFailureRetriesAndSendsOnce(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.smtp.Refuse(2)
	ta, _ := nb.openJoined(t, OpenInput{}, "")
	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, "cancel", ""); err != nil {
		t.Fatal(err)
	}
	mail := nb.mailTo(t, "alpha@example.test", 1)
	if !strings.HasPrefix(mail.Subject, "Withdraw?") {
		t.Errorf("subject %q", mail.Subject)
	}
	nb.settle(t) // a wrong second send would be done by now
	if got, tries := len(nb.smtp.Mails()), nb.smtp.Attempts(); got != 1 || tries != 3 {
		t.Fatalf("%d mails accepted after %d attempts; want 1 after 3", got, tries)
	}
	log := nb.log(t, "alpha@example.test")
	if len(log) != 1 || log[0].Status != jobs.StatusSent || log[0].Attempts != 3 || log[0].Recipient != "alpha@example.test" {
		t.Fatalf("delivery log: %+v", log)
	}
}

// TestSMTPRefusedForGoodIsNotSentAgain: a server that refuses a message
// for good at its data (a 5xx: its content, its size, the sender's
// policy; RFC 5321 §4.2.1 has a client not send it again as it is) is
// not offered it again, for weeks of River's retries: the delivery log
// says failed after the one attempt, with the server's words.
func TestSMTPRefusedForGoodIsNotSentAgain(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.smtp.RefuseForGood(1)
	ta, _ := nb.openJoined(t, OpenInput{}, "")
	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, "cancel", ""); err != nil {
		t.Fatal(err)
	}
	nb.settle(t) // a retry (200 ms in these tests) would be done by now
	if got, tries := len(nb.smtp.Mails()), nb.smtp.Attempts(); got != 0 || tries != 1 {
		t.Fatalf("%d mails accepted after %d attempts; want the one attempt, refused", got, tries)
	}
	log := nb.log(t, "alpha@example.test")
	if len(log) != 1 || log[0].Status != jobs.StatusFailed || log[0].Attempts != 1 || !strings.Contains(log[0].Error, "554") {
		t.Fatalf("delivery log: %+v", log)
	}
}

// TestFanOutIsUniqueAndSentOnce: inserting the same notice twice makes one
// job, and a job run again after it sent sends nothing.
func TestFanOutIsUniqueAndSentOnce(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	cv, v := nb.withdrawAsked(t)
	nb.mailTo(t, "alpha@example.test", 1)
	notice := jobs.Notice{Topic: jobs.TopicRequest, RoomID: v.RoomID, Side: negotiation.SideA, UserID: nb.a.OwnerUserID, ConfirmationID: cv.ID}
	for range 2 {
		tx, err := nb.pool.Begin(nb.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := enqueueNotices(nb.ctx, tx, nil, nb.rooms.river, nb.rooms.now(), []jobs.Notice{notice}, nil, ""); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(nb.ctx); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := nb.pool.QueryRow(nb.ctx, `SELECT count(*) FROM river_job WHERE kind = 'notify_email'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d email jobs (%v), want 1", n, err)
	}
	// The job, worked again (a crash between the send and River's
	// completion), finds it was sent (TestRescuedJobSendsNothingTwice works
	// it again through River).
	var jobID int64
	_ = nb.pool.QueryRow(nb.ctx, `SELECT id FROM river_job WHERE kind = 'notify_email'`).Scan(&jobID)
	d := jobs.Delivery{Notice: notice, JobID: jobID, Attempt: 2, Channel: jobs.ChannelEmail}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if sent, err := nb.svc.Sent(nb.ctx, d); err != nil {
			t.Fatal(err)
		} else if sent {
			break
		}
	}
	if sent, err := nb.svc.Sent(nb.ctx, d); err != nil || !sent {
		t.Fatalf("a second run: sent %v, %v", sent, err)
	}
	// A late report of that job (a skip, a failure) leaves the line sent.
	if err := nb.svc.Record(nb.ctx, d, jobs.Outcome{Status: jobs.StatusSkipped, Detail: "late"}); err != nil {
		t.Fatal(err)
	}
	if log := nb.log(t, "alpha@example.test"); len(log) != 1 || log[0].Status != jobs.StatusSent || log[0].Attempts != 1 {
		t.Fatalf("the log after a late report: %+v", log)
	}
	nb.settle(t)
	if got := len(nb.smtp.Mails()); got != 1 {
		t.Fatalf("%d mails, want 1", got)
	}
}

// TestNotificationRechecks: a notice is read again when its job runs, in
// one statement; each thing that stopped being true skips it, and a live
// one comes back addressed, with the recipient's card and the parties'
// names.
func TestNotificationRechecks(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	cv, v := nb.withdrawAsked(t)
	dev := nb.subscribe(t, "alpha@example.test", "laptop")
	subs, err := nb.svc.PushSubscriptions(nb.ctx, nb.a.OwnerUserID)
	if err != nil || len(subs) != 1 {
		t.Fatalf("subscriptions %+v, %v", subs, err)
	}
	request := jobs.Notice{Topic: jobs.TopicRequest, RoomID: v.RoomID, Side: negotiation.SideA, UserID: nb.a.OwnerUserID, ConfirmationID: cv.ID}
	email := jobs.Delivery{Notice: request, Channel: jobs.ChannelEmail}
	n, err := nb.svc.Notification(nb.ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	if n.To != "alpha@example.test" || n.Push != nil || n.Verdict != "cancel" || n.Agent != "agent" || n.Them != "BETA" || !oneTapLink.MatchString(n.OneTapURL) {
		t.Errorf("the request by email: to %q, push %v, verdict %q, agent %q, them %q, link %q", n.To, n.Push, n.Verdict, n.Agent, n.Them, n.OneTapURL)
	}
	push := jobs.Delivery{Notice: request, Channel: jobs.ChannelPush, SubscriptionID: subs[0].ID}
	if n, err := nb.svc.Notification(nb.ctx, push); err != nil || n.Push == nil || n.Push.Endpoint != dev.Endpoint || n.To != "" {
		t.Errorf("the request by push: %+v, %v", n, err)
	}
	noticeOff := NotifyPrefs{EmailRequests: true, EmailNotices: false, PushRequests: true, PushNotices: true}
	if err := nb.svc.SetPrefs(nb.ctx, nb.a.OwnerUserID, noticeOff); err != nil {
		t.Fatal(err)
	}
	with := func(f func(d *jobs.Delivery)) jobs.Delivery { d := email; f(&d); return d }
	for _, c := range []struct {
		d    jobs.Delivery
		skip string
	}{
		{with(func(d *jobs.Delivery) { d.RoomID = v.RoomID + 1000 }), "the room no longer exists"},
		{with(func(d *jobs.Delivery) { d.UserID = 1 << 40 }), "the user no longer exists"},
		{with(func(d *jobs.Delivery) { d.Topic = jobs.TopicAgreed }), "email notices are turned off"},
		{with(func(d *jobs.Delivery) { d.Channel, d.SubscriptionID = jobs.ChannelPush, subs[0].ID+1000 }), "the device unsubscribed"},
		{with(func(d *jobs.Delivery) { d.Side = negotiation.SideB }), "no longer this side's human"},
		{with(func(d *jobs.Delivery) { d.ConfirmationID = "cf_other" }), "the confirmation is no longer pending"},
	} {
		_, err := nb.svc.Notification(nb.ctx, c.d)
		var skip *jobs.SkipError
		if !errors.As(err, &skip) || skip.Reason != c.skip {
			t.Errorf("%+v: %v, want skipped: %s", c.d, err, c.skip)
		}
	}
}

// TestNoticesNoDealLapseReminderUnsubscribe: no deal possible at the join,
// a reminder before the deadline, the lapse: each reaches both humans (the
// reminder, its own); List-Unsubscribe stops notices, never requests.
func TestNoticesNoDealLapseReminderUnsubscribe(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	// The deadline 1 h 6 min away: the 1 h reminder is due in 6 minutes.
	deadline := nb.rooms.now().Add(time.Hour + 6*time.Minute)
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Deadline: &deadline,
		Limits: json.RawMessage(`{"fee":{"min":{"amount":"4321.09","currency":"EUR"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	j, err := nb.rooms.Join(nb.ctx, nb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema,
		Limits: json.RawMessage(`{"fee":{"max":{"amount":"987.65","currency":"EUR"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"alpha@example.test", "beta@example.test"} {
		m := nb.mailTo(t, addr, 1)
		if !strings.HasPrefix(m.Subject, "No deal possible on Fee") || strings.Contains(m.Text, "4321") || strings.Contains(m.Text, "987") {
			t.Errorf("%s: %q\n%s", addr, m.Subject, m.Text)
		}
	}
	_, err = nb.rooms.Propose(nb.ctx, nb.a, open.RoomToken, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, j.RoomToken, "reject", ""); err != nil {
		t.Fatal(err)
	}
	req := nb.mailTo(t, "beta@example.test", 2)
	if !strings.HasPrefix(req.Subject, "Reject the terms?") {
		t.Errorf("request %q", req.Subject)
	}
	nb.advance(6 * time.Minute)
	if n, err := nb.svc.RemindDue(nb.ctx, 10); err != nil || n != 1 {
		t.Fatalf("the sweep at the 1 h reminder: %d due, %v", n, err)
	}
	rem := nb.mailTo(t, "beta@example.test", 3)
	if !strings.HasPrefix(rem.Subject, "Reminder: your answer is waiting") || !oneTapLink.MatchString(rem.Text) ||
		rem.Header.Get("List-Unsubscribe") == "" || !strings.Contains(rem.Text, "in about 60 minutes") {
		t.Errorf("reminder %q:\n%s", rem.Subject, rem.Text)
	}
	// b unsubscribes from notices with the reminder's link.
	link := strings.Trim(rem.Header.Get("List-Unsubscribe"), "<>")
	email, err := nb.svc.UnsubscribeNotices(nb.ctx, link[strings.LastIndex(link, "/")+1:])
	if err != nil || email != "beta@example.test" {
		t.Fatalf("unsubscribe: %q %v", email, err)
	}
	if _, err := nb.svc.UnsubscribeNotices(nb.ctx, "un_forged"); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("a forged link: %v", err)
	}
	// The deadline passes: the room lapses, a is told, b (unsubscribed) not.
	nb.advance(time.Hour)
	if n, err := nb.rooms.CloseDue(nb.ctx, 10); err != nil || n != 1 {
		t.Fatalf("the sweep after the deadline: %d due, %v", n, err)
	}
	closed := nb.mailTo(t, "alpha@example.test", 2)
	if !strings.HasPrefix(closed.Subject, "Closed") || !strings.Contains(closed.Text, "the deadline passed without an agreement") {
		t.Errorf("closed %q:\n%s", closed.Subject, closed.Text)
	}
	nb.settle(t)
	for _, d := range nb.log(t, "beta@example.test") {
		if d.Topic == jobs.TopicClosed {
			t.Errorf("b unsubscribed from notices but got %+v", d)
		}
	}
	if got := len(nb.smtp.Mails()); got != 5 {
		t.Errorf("%d mails, want 5 (2 no deal, request, reminder, closed)", got)
	}
	// A request still reaches b.
	_, tb2 := nb.openJoined(t, OpenInput{}, "")
	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb2, "cancel", ""); err != nil {
		t.Fatal(err)
	}
	if m := nb.mailTo(t, "beta@example.test", 4); !strings.HasPrefix(m.Subject, "Withdraw?") {
		t.Errorf("request after unsubscribing: %q", m.Subject)
	}
}

// TestGonePushSubscriptionIsRemoved: a push service answering 410 removes
// the device; a test push reaches a live one.
func TestGonePushSubscriptionIsRemoved(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	old := nb.subscribe(t, "alpha@example.test", "old laptop")
	nb.subscribe(t, "alpha@example.test", "phone")
	nb.push.Gone(old)
	if n, err := nb.svc.SendTestPush(nb.ctx, nb.a.OwnerUserID, 0); err != nil || n != 2 {
		t.Fatalf("test push: %d %v", n, err)
	}
	got := nb.push.Wait(t, 1, 10*time.Second)
	if got[0].Device != "phone" {
		t.Fatalf("pushed to %s", got[0].Device)
	}
	end := time.Now().Add(5 * time.Second)
	for time.Now().Before(end) {
		subs, _ := nb.svc.PushSubscriptions(nb.ctx, nb.a.OwnerUserID)
		if len(subs) == 1 && subs[0].Device == "phone" && subs[0].LastSentAt != nil {
			var gone bool
			for _, d := range nb.log(t, "alpha@example.test") {
				gone = gone || d.Status == jobs.StatusGone
			}
			if gone {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	subs, _ := nb.svc.PushSubscriptions(nb.ctx, nb.a.OwnerUserID)
	t.Fatalf("subscriptions %+v; log %+v", subs, nb.log(t, "alpha@example.test"))
}

// TestPreapproveRequestAndExpiryNotice: a slots room opened with
// preapprove asks the initiator's human at once, showing every option; an
// invitation nobody answers expires, and the initiator's human is told.
func TestPreapproveRequestAndExpiryNotice(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	_, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Preapprove: true, Title: "Coffee", Slots: []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T09:30:00Z"}`),
		json.RawMessage(`{"start":"2026-12-03T15:00:00Z","end":"2026-12-03T15:30:00Z"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	req := nb.mailTo(t, "alpha@example.test", 1)
	if !strings.HasPrefix(req.Subject, "Accept any of these options? — Coffee") ||
		!strings.Contains(req.Text, "Option 1 of 2") || !strings.Contains(req.Text, "Option 2 of 2") ||
		!strings.Contains(req.Text, "with the person you invite") || !oneTapLink.MatchString(req.Text) {
		t.Errorf("preapprove request %q:\n%s", req.Subject, req.Text)
	}
	nb.advance(72 * time.Hour)
	if n, err := nb.rooms.CloseDue(nb.ctx, 10); err != nil || n != 1 {
		t.Fatalf("the sweep at the expiry: %d due, %v", n, err)
	}
	closed := nb.mailTo(t, "alpha@example.test", 2)
	if !strings.HasPrefix(closed.Subject, "Closed — Coffee") || !strings.Contains(closed.Text, "nobody answered the invitation within 72 hours") {
		t.Errorf("expiry notice %q:\n%s", closed.Subject, closed.Text)
	}
	// The request, voided by the expiry, is reminded of by nobody: the
	// sweep finds no reminder due.
	if n, err := nb.svc.RemindDue(nb.ctx, 10); err != nil || n != 0 {
		t.Fatalf("reminders after the expiry: %d due, %v", n, err)
	}
	nb.settle(t)
	if n := len(nb.smtp.Mails()); n != 2 {
		t.Errorf("%d mails, want 2", n)
	}
}

// TestAPersonWithoutAnAccountInTheReadersWords: the inviter reads French,
// and the person who answered on /i/ has no account's name: the request,
// the agreement and its calendar name them in French, not in English.
func TestAPersonWithoutAnAccountInTheReadersWords(t *testing.T) {
	nb := setupNotify(t)
	acc := NewAccounts(nb.pool)
	ua, err := acc.UserByEmail(nb.ctx, "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.SetUserLanguage(nb.ctx, ua.ID, "fr"); err != nil {
		t.Fatal(err)
	}
	slots := []json.RawMessage{
		json.RawMessage(`{"start":"2026-10-14T09:00:00+02:00","end":"2026-10-14T09:30:00+02:00"}`),
		json.RawMessage(`{"start":"2026-10-15T14:00:00+02:00","end":"2026-10-15T14:30:00+02:00"}`),
	}
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Slots: slots})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := nb.rooms.InvitationByCode(nb.ctx, open.InviteURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	pick := inv.Card.Options[1].SubjectHash
	if _, err := nb.rooms.AnswerInvitation(nb.ctx, open.InviteCode, PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: pick, Email: "pat@example.test"}); err != nil {
		t.Fatal(err)
	}
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, open.RoomToken, "approve", pick)
	if err != nil {
		t.Fatal(err)
	}
	req := nb.mailTo(t, "alpha@example.test", 1)
	nb.confirm(t, nb.a, open.RoomToken, cv)
	agreed := nb.mailTo(t, "alpha@example.test", 2)
	said := req.Subject + "\n" + req.Text + "\n" + agreed.Subject + "\n" + agreed.Text
	for _, a := range agreed.Attachments {
		said += "\n" + string(a.Data)
	}
	if strings.Contains(said, "the person you") || strings.Count(said, "la personne que vous avez invitée") < 4 {
		t.Errorf("the person is not named in French:\n%s", said)
	}
}

// TestPushServiceAwayKeepsTheDevice: a push service answering 503 (down
// for a while) has the push retried, not the device forgotten: the push
// arrives once the service is back, once, and the device stays subscribed;
// the delivery log says sent, after the failed attempts.
func TestPushServiceAwayKeepsTheDevice(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.subscribe(t, "alpha@example.test", "phone")
	nb.push.Unavailable(2)
	if n, err := nb.svc.SendTestPush(nb.ctx, nb.a.OwnerUserID, 0); err != nil || n != 1 {
		t.Fatalf("test push: %d %v", n, err)
	}
	got := nb.push.Wait(t, 1, 10*time.Second)
	if got[0].Device != "phone" || nb.push.Refused() != 2 {
		t.Fatalf("pushed to %s after %d refusals", got[0].Device, nb.push.Refused())
	}
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		subs, _ := nb.svc.PushSubscriptions(nb.ctx, nb.a.OwnerUserID)
		log := nb.log(t, "alpha@example.test")
		if len(subs) == 1 && subs[0].LastSentAt != nil && len(log) == 1 && log[0].Status == jobs.StatusSent && log[0].Attempts == 3 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("subscriptions %+v; log %+v", subs, log)
		}
	}
	nb.settle(t)
	if n := len(nb.push.Pushes()); n != 1 {
		t.Fatalf("%d pushes, want 1", n)
	}
}
