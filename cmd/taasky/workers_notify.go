package main

import (
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"net/url"

	"github.com/riverqueue/river"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/netguard"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/notify"
)

// notifier is the notifications part of the process: the service the
// dashboard calls (preferences, push devices, the delivery log, the dev
// outbox) and the workers that deliver. The workers are registered before
// the River client exists (every role registers them, so that inserting
// their jobs is allowed); bind hands them the service once the rooms exist.
type notifier struct {
	svc    *app.Notifications
	email  *jobs.EmailWorker
	push   *jobs.PushWorker
	remind *jobs.RemindWorker
	invite *jobs.InviteWorker
	member *jobs.MemberInviteWorker
	outbox *notify.Outbox // nil when mail goes to an SMTP server
	// hooks is the webhooks service; hook sends webhooks, hookOff mails the
	// owners of an endpoint Taasky disabled.
	hooks   *app.Webhooks
	hook    *jobs.WebhookWorker
	hookOff *jobs.WebhookDisabledWorker
	// hooksInternal lets webhooks and pushes go to loopback and private
	// addresses (and http to loopback): in dev, and when BASE_URL itself is
	// on loopback (a test or a machine of one's own), never in production.
	hooksInternal bool
}

// newNotifier builds the channels from the configuration: SMTP_URL, else
// the dev outbox; mail from SMTP_FROM, else Taasky at BASE_URL's host; Web
// Push when the VAPID keys are set.
func newNotifier(cfg config.Config, log *slog.Logger) *notifier {
	from := cfg.MailFrom(notify.DefaultFrom(cfg.BaseURL))
	// One share for the outbound queue's two kinds: an account's webhooks
	// and a user's pushes each hold at most jobs.OutboundPerOwner workers.
	share := jobs.NewOutboundShare(jobs.OutboundPerOwner)
	n := &notifier{
		email:         &jobs.EmailWorker{From: from, Log: log},
		push:          &jobs.PushWorker{Log: log, Share: share},
		remind:        &jobs.RemindWorker{},
		invite:        &jobs.InviteWorker{From: from, Log: log},
		member:        &jobs.MemberInviteWorker{From: from, Log: log},
		hookOff:       &jobs.WebhookDisabledWorker{From: from, Log: log},
		hooksInternal: cfg.Role&config.RoleDev != 0 || baseOnLoopback(cfg.BaseURL),
	}
	n.hook = &jobs.WebhookWorker{Sender: notify.NewWebhookSender(n.hooksInternal, nil), Log: log, Share: share}
	if s := cfg.SMTP; s != nil {
		n.email.Mailer = notify.NewSMTP(notify.SMTPConfig{Host: s.Host, Port: s.Port, Username: s.Username,
			Password: s.Password, ImplicitTLS: s.ImplicitTLS})
	} else {
		n.outbox = &notify.Outbox{}
		n.email.Mailer = n.outbox
	}
	n.invite.Mailer, n.member.Mailer, n.hookOff.Mailer = n.email.Mailer, n.email.Mailer, n.email.Mailer
	if v := cfg.VAPID; v != nil {
		contact := "taasky@localhost"
		if a, err := mail.ParseAddress(from); err == nil {
			contact = a.Address
		}
		n.push.Pusher = &notify.Pusher{VAPID: notify.VAPID{PublicKey: v.PublicKey, PrivateKey: v.PrivateKey, Subscriber: contact},
			AllowInternal: n.hooksInternal}
	}
	return n
}

// addNotifyWorkers registers the notification workers and returns how many.
func addNotifyWorkers(workers *river.Workers, d deps) int {
	if d.notify == nil {
		return 0
	}
	river.AddWorker(workers, d.notify.email)
	river.AddWorker(workers, d.notify.push)
	river.AddWorker(workers, d.notify.remind)
	river.AddWorker(workers, d.notify.invite)
	river.AddWorker(workers, d.notify.member)
	river.AddWorker(workers, d.notify.hook)
	river.AddWorker(workers, d.notify.hookOff)
	return 7
}

// bind builds the service on the process's River client and rooms, and
// hands it to the workers.
func (n *notifier) bind(d deps) error {
	svc, err := app.NewNotifications(app.NotificationsConfig{Pool: d.pool, River: d.river, Rooms: d.rooms,
		UnsubscribeKey: d.cfg.Key("unsubscribe"), PreviousUnsubscribeKey: d.cfg.PreviousKey("unsubscribe"), BaseURL: d.cfg.BaseURL})
	if err != nil {
		return err
	}
	n.svc = svc
	n.email.Deliveries, n.push.Deliveries, n.invite.Invitations = svc, svc, svc
	n.member.Invitations, n.member.Deliveries = d.accounts, svc
	hc := app.WebhooksConfig{Pool: d.pool, River: d.river, Rooms: d.rooms, BaseURL: d.cfg.BaseURL}
	if !n.hooksInternal {
		hc.CheckHost = netguard.CheckHost
	}
	n.hooks = app.NewWebhooks(hc)
	n.hook.Webhooks, n.hookOff.Notices, n.hookOff.Deliveries = n.hooks, n.hooks, svc
	if n.outbox != nil {
		n.outbox.Store = svc
	}
	return nil
}

// baseOnLoopback reports whether the service's own URL is on this machine.
func baseOnLoopback(base string) bool {
	u, err := url.Parse(base)
	return err == nil && netguard.IsLoopbackHost(u.Hostname())
}

// devVAPIDEnv is getenv with Web Push keys for taasky dev when
// VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are both unset: derived from the
// dev secret key, so they are the same at every start and browsers stay
// subscribed. generated says whether it made them.
func devVAPIDEnv(getenv func(string) string, secret string) (env func(string) string, generated bool) {
	if getenv("VAPID_PUBLIC_KEY") != "" || getenv("VAPID_PRIVATE_KEY") != "" {
		return getenv, false
	}
	for i := 0; ; i++ {
		seed, err := hkdf.Key(sha256.New, []byte(secret), nil, fmt.Sprintf("taasky/dev-vapid/%d", i), 32)
		if err != nil {
			return getenv, false
		}
		key, err := ecdh.P256().NewPrivateKey(seed) // fails for the rare seed not below the curve's order
		if err != nil {
			continue
		}
		pub := base64.RawURLEncoding.EncodeToString(key.PublicKey().Bytes())
		priv := base64.RawURLEncoding.EncodeToString(key.Bytes())
		return func(name string) string {
			switch name {
			case "VAPID_PUBLIC_KEY":
				return pub
			case "VAPID_PRIVATE_KEY":
				return priv
			}
			return getenv(name)
		}, true
	}
}

// printNotifyBanner tells the person at the terminal where mail goes and
// which Web Push keys are used.
func printNotifyBanner(w io.Writer, cfg config.Config, vapidGenerated bool) {
	fmt.Fprintln(w)
	if cfg.SMTP == nil {
		fmt.Fprintf(w, "  Mail is kept, not sent: %s/dev/outbox (set SMTP_URL to send it)\n", cfg.BaseURL)
	} else {
		fmt.Fprintf(w, "  Mail goes to SMTP %s:%d\n", cfg.SMTP.Host, cfg.SMTP.Port)
	}
	if cfg.VAPID != nil && vapidGenerated {
		fmt.Fprintf(w, "  Web Push keys, derived from the dev secret (to keep them for serve):\n    VAPID_PUBLIC_KEY=%s\n    VAPID_PRIVATE_KEY=%s\n",
			cfg.VAPID.PublicKey, cfg.VAPID.PrivateKey)
	}
	fmt.Fprintln(w)
}
