package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/taasky/taasky/internal/netguard"
)

// PushPayload is what a push shows: who asks, about what, and the link. It
// is short (a push is at most 4 KiB encrypted, and a lock screen shows two
// lines) and holds nothing of the card but field labels and values.
type PushPayload struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	URL   string `json:"url"`
	Tag   string `json:"tag"`
	// Kind lets the service worker choose its actions ("Review" on a
	// request or reminder).
	Kind Kind `json:"kind"`
	// Action is the label of that "Review" button, in the reader's
	// language (request, reminder).
	Action string `json:"action,omitempty"`
}

const maxPushBody = 240

// Push renders m as a push payload (JSON).
func Push(m *Message) []byte {
	v := m.view()
	p := PushPayload{Title: v.Heading, URL: v.ActionURL, Tag: fmt.Sprintf("taasky-room-%d", m.RoomID), Kind: m.Kind}
	w := v.w
	agent := w.T("mail.your_agent")
	if m.Agent != "" {
		agent = oneLine(m.Agent)
	}
	switch m.Kind {
	case KindRequest:
		p.Title, p.Action = w.T("push.request", agent, w.Ask(m.Verdict)), w.T("mail8_push.review")
	case KindReminder:
		p.Title, p.Action = w.T("push.reminder", w.Ask(m.Verdict)), w.T("mail8_push.review")
	case KindTest:
		p.Tag = "taasky-test"
	}
	body := oneLine(m.subjectOf(w))
	if m.them(w) != "" && m.Title != "" {
		body += " · " + w.T("onetap.with", oneLine(m.them(w)))
	}
	if len(v.Options) == 1 {
		var parts []string
		for _, f := range v.Options[0].Fields {
			if f.Missing {
				continue
			}
			parts = append(parts, w.T("form.at", v.label(f), f.pushValue()))
		}
		if len(parts) > 0 {
			body += "\n" + wholeParts(parts, maxPushBody-utf8.RuneCountInString(body)-1)
		}
	} else if len(v.Options) > 1 {
		body += "\n" + w.T("push.options", len(v.Options))
	}
	if m.Kind == KindNoDeal || m.Kind == KindClosed || m.Kind == KindTest {
		body = v.Intro
	}
	p.Title, p.Body = clipText(p.Title, 120), clipText(body, maxPushBody)
	b, _ := json.Marshal(p)
	return b
}

// pushValue is the field's value on the push's one line: a value may
// hold line breaks, and words a party wrote are quoted, each value apart,
// so that they cannot read as more fields ("ok; Fee: 0.00 EUR" as a note
// beside the fee) nor as several values (quoteWords).
func (f fieldView) pushValue() string {
	if !f.Words {
		return oneLine(f.Text)
	}
	vals := f.Items
	if len(vals) == 0 {
		vals = []string{f.Text}
	}
	quoted := make([]string, len(vals))
	for i, v := range vals {
		quoted[i] = quoteWords(oneLine(v))
	}
	return strings.Join(quoted, ", ")
}

// quoteWords quotes words a party wrote, as written: only a quote and a
// backslash are escaped (a quote cannot end the value early), and a
// character nobody sees (format characters, U+200B, U+FEFF) is written
// as its escape, so that it hides nothing. strconv.Quote escaped every
// character Go does not call printable: the spaces people type (a
// Japanese full-width space, French no-break spaces before ":" and
// between thousands) read as "\u3000", and an emoji joined by U+200D
// (which negotiation.Deceptive lets through) fell apart. A joiner is
// shown as written only where it joins (joins).
func quoteWords(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case unicode.IsGraphic(r) || joins(rs, i):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r) // '\u200b'
			b.WriteString(q[1 : len(q)-1])
		}
	}
	b.WriteByte('"')
	return b.String()
}

// joins says whether rs[i] is a joiner doing its work, which shows it as
// written: U+200D between two emoji (👩‍💻, after a skin tone or U+FE0F:
// 🏳️‍🌈), U+200C between two letters of a script that writes it (Persian's
// می‌خواهم, Indic scripts). Elsewhere it joins nothing a reader sees, and
// "F\u200dee" would read as "Fee": it is shown as its escape.
func joins(rs []rune, i int) bool {
	if i == 0 || i == len(rs)-1 {
		return false
	}
	prev, next := rs[i-1], rs[i+1]
	switch rs[i] {
	case '\u200d':
		return (emoji(prev) || prev == '\ufe0f') && emoji(next)
	case '\u200c':
		return joinerScript(prev) && joinerScript(next)
	}
	return false
}

// emoji approximates Extended_Pictographic and the skin-tone modifiers,
// which Go's unicode tables lack: the other symbols (So) and U+1F3FB–1F3FF.
func emoji(r rune) bool {
	return unicode.Is(unicode.So, r) || r >= 0x1F3FB && r <= 0x1F3FF
}

// joinerScript: a letter or mark of a script that writes U+200C inside
// its words (Arabic's, Persian among them, and the Indic scripts'): not
// Latin, Greek or Cyrillic, where it only hides.
func joinerScript(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsMark(r)) &&
		!unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// wholeParts joins the fields' "label: value" parts that fit in n
// characters, each whole: a value cut short ("Fee: 1,234,5…") reads as
// another value; "…" stands for the parts left out.
func wholeParts(parts []string, n int) string {
	const more = "…"
	var b string
	for i, p := range parts {
		next := p
		if i > 0 {
			next = b + "; " + p
		}
		reserve := 0
		if i < len(parts)-1 {
			reserve = len("; ") + utf8.RuneCountInString(more)
		}
		if utf8.RuneCountInString(next)+reserve > n {
			if i > 0 {
				return b + "; " + more
			}
			return more
		}
		b = next
	}
	return b
}

func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// ErrGone means the push subscription no longer exists (404 or 410): remove it.
var ErrGone = errors.New("push subscription gone")

// VAPID is the application server's identity for Web Push.
type VAPID struct {
	PublicKey  string // base64url
	PrivateKey string // base64url
	// Subscriber is the contact a push service may write to: an email
	// address (mailto: is added) or an https URL.
	Subscriber string
}

// Pusher sends Web Push messages.
type Pusher struct {
	VAPID VAPID
	// nil: a client with a 15 s timeout that follows no redirect and, unless
	// AllowInternal (dev, tests), dials no loopback, private or link-local
	// address: an endpoint is whatever a signed-in user saved.
	Client        *http.Client
	AllowInternal bool

	once    sync.Once
	guarded *http.Client
}

// client is p.Client, or the guarded one made once.
func (p *Pusher) client() *http.Client {
	p.once.Do(func() {
		if p.Client != nil {
			p.guarded = p.Client
			return
		}
		p.guarded = &http.Client{Timeout: pushTimeout,
			Transport: &http.Transport{DialContext: netguard.Dialer(pushTimeout, p.AllowInternal).DialContext,
				TLSHandshakeTimeout: pushTimeout, ResponseHeaderTimeout: pushTimeout, MaxResponseHeaderBytes: 16 << 10,
				MaxIdleConnsPerHost: 4, IdleConnTimeout: 90 * time.Second},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	})
	return p.guarded
}

const pushTimeout = 15 * time.Second

// PushOptions are per message: how long a push service keeps it for an
// offline device, and how urgently it delivers it.
type PushOptions struct {
	TTL     time.Duration
	Urgency webpush.Urgency
	// Topic names what the push is about ("room-12", "test"): a push
	// service keeps one undelivered push per device and topic, the newest
	// (RFC 8030 §5.4), so a phone that comes back online gets the room's
	// latest news, not a stack. It goes out hashed (pushTopic).
	Topic string
}

// OptionsFor says how to push a message of kind k: requests are urgent and
// worth keeping a day (an answer has a deadline); notices are normal.
func OptionsFor(k Kind) PushOptions {
	switch k {
	case KindRequest, KindReminder:
		return PushOptions{TTL: 24 * time.Hour, Urgency: webpush.UrgencyHigh}
	case KindTest:
		return PushOptions{TTL: 10 * time.Minute, Urgency: webpush.UrgencyNormal}
	}
	return PushOptions{TTL: 72 * time.Hour, Urgency: webpush.UrgencyNormal}
}

// Send pushes payload to t. ErrGone: the subscription is gone; a
// *PermanentError: the push service refuses the request for good; any other
// error may pass on a retry.
func (p *Pusher) Send(ctx context.Context, t PushTarget, payload []byte, o PushOptions) error {
	resp, err := webpush.SendNotificationWithContext(ctx, payload,
		&webpush.Subscription{Endpoint: t.Endpoint, Keys: webpush.Keys{P256dh: t.P256dh, Auth: t.Auth}},
		&webpush.Options{HTTPClient: p.client(), Subscriber: p.VAPID.Subscriber, TTL: int(o.TTL / time.Second),
			Urgency: o.Urgency, Topic: p.topic(t.Endpoint, o.Topic), VAPIDPublicKey: p.VAPID.PublicKey, VAPIDPrivateKey: p.VAPID.PrivateKey})
	// Not the *url.Error itself: it quotes the endpoint, the subscription's
	// capability URL, into River's log and job list (the transport's own
	// error names the host).
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, netguard.ErrRefused) {
		return &PermanentError{Err: fmt.Errorf("push: %w", err)}
	} else if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	// Only the status is kept: the delivery log shows the error to the
	// user, and the answer's body is the endpoint's, whoever that is.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return ErrGone
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("push service: %s", resp.Status)
	}
	return &PermanentError{Err: fmt.Errorf("push service: %s", resp.Status)}
}

// topic is the Topic header of a push about topic to endpoint ("" for
// none): 32 characters of base64url (the most RFC 8030 allows), an HMAC
// under the VAPID private key of the endpoint and the topic. The push
// service learns which of a device's pushes are about the same room, as
// it must to replace them, but not which room, nor, from two devices
// (two people) with the same topic, that they share one.
func (p *Pusher) topic(endpoint, topic string) string {
	if topic == "" {
		return ""
	}
	mac := hmac.New(sha256.New, []byte("taasky push topic\x00"+p.VAPID.PrivateKey))
	mac.Write([]byte(endpoint + "\x00" + topic))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:24])
}

// PushOptionsFor says how to push m: as OptionsFor its kind, and a request
// or a reminder kept no longer than until its deadline (whole seconds, as
// the TTL header has them). A push service keeps a push that long for a
// device that is offline (RFC 8030 §5.2); one delivered after the deadline
// would ask for an answer that can no longer be given. Its Topic is its
// room's, as its payload's tag is: the newest push about a room replaces
// the older, at the push service while undelivered and on the device once
// shown.
func PushOptionsFor(m *Message) PushOptions {
	o := OptionsFor(m.Kind)
	o.Topic = "room-" + strconv.FormatInt(m.RoomID, 10)
	if m.Kind == KindTest {
		o.Topic = "test"
	}
	if (m.Kind == KindRequest || m.Kind == KindReminder) && !m.Deadline.IsZero() {
		o.TTL = max(min(o.TTL, m.Deadline.Sub(m.Now).Truncate(time.Second)), 0)
	}
	return o
}
