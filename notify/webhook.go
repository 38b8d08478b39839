package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/taasky/taasky/internal/netguard"
)

// Webhooks follow the Standard Webhooks specification
// (https://www.standardwebhooks.com), signed by its reference library: the
// headers webhook-id, webhook-timestamp and webhook-signature, the
// signature "v1," followed by the base64 HMAC-SHA256 of
// "{id}.{timestamp}.{body}" under the secret (whsec_ and base64 of its
// bytes), several signatures separated by spaces while two secrets are
// valid.

// WebhookSecretPrefix starts every webhook secret.
const WebhookSecretPrefix = "whsec_"

// WebhookMessage is one attempt at one webhook.
type WebhookMessage struct {
	URL     string
	ID      string   // webhook-id: the same for every attempt of the message
	Secrets []string // each signs the message; the receiver needs one
	Payload []byte
	At      time.Time // webhook-timestamp
}

// SignWebhook returns the webhook-signature header of a message: one
// "v1,…" per secret, separated by spaces.
func SignWebhook(id string, at time.Time, payload []byte, secrets []string) (string, error) {
	if len(secrets) == 0 {
		return "", errors.New("webhook: no secret to sign with")
	}
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil || !strings.HasPrefix(s, WebhookSecretPrefix) {
			return "", errors.New("webhook: a secret is not whsec_ and base64")
		}
		sig, err := wh.Sign(id, at, payload)
		if err != nil {
			return "", fmt.Errorf("webhook: sign: %w", err)
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

const (
	// WebhookTimeout bounds one attempt: connecting, TLS, the answer.
	WebhookTimeout = 10 * time.Second
	// webhookReadCap is how much of an answer is read (and thrown away).
	webhookReadCap = 64 << 10
)

// WebhookSender posts webhooks: a short timeout, no redirect followed (a
// 3xx is a failed attempt), at most 64 KiB of the answer read, and, unless
// AllowInternal (dev and tests), no connection to a loopback, private or
// link-local address, checked on the address dialled (netguard).
type WebhookSender struct {
	client *http.Client
	agent  string
}

// NewWebhookSender builds a sender; base, when not nil, replaces the
// transport (tests' TLS servers), keeping the other rules.
func NewWebhookSender(allowInternal bool, base http.RoundTripper) *WebhookSender {
	if base == nil {
		base = &http.Transport{DialContext: netguard.Dialer(WebhookTimeout, allowInternal).DialContext,
			TLSHandshakeTimeout: WebhookTimeout, ResponseHeaderTimeout: WebhookTimeout, MaxResponseHeaderBytes: 16 << 10,
			MaxIdleConnsPerHost: 2, IdleConnTimeout: 90 * time.Second}
	}
	return &WebhookSender{agent: "Taasky-Webhooks/1", client: &http.Client{Timeout: WebhookTimeout, Transport: base,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Send posts m, signed, and returns the answer's status code (0: none). A
// 2xx is success; anything else is an error, to be retried.
func (s *WebhookSender) Send(ctx context.Context, m WebhookMessage) (int, error) {
	sig, err := SignWebhook(m.ID, m.At, m.Payload, m.Secrets)
	if err != nil {
		return 0, &PermanentError{Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL, bytes.NewReader(m.Payload))
	if err != nil {
		return 0, &PermanentError{Err: fmt.Errorf("webhook: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.agent)
	req.Header.Set("webhook-id", m.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(m.At.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, fmt.Errorf("no answer: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, webhookReadCap))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("answered HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}
