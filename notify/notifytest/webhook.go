package notifytest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// signedPerSpec checks a request's signature as the Standard Webhooks
// specification writes it, by hand: the secret is the base64 after
// "whsec_"; one of the space-separated "v1,<base64>" signatures is the
// HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}". Taasky signs
// with the reference library that the endpoint also verifies with, so
// this second reading would catch a fault they shared.
func signedPerSpec(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		return false
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.", h.Get("webhook-id"), h.Get("webhook-timestamp"))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// Webhook is one request the webhook endpoint received, with what the
// Standard Webhooks reference library said of its signature.
type Webhook struct {
	ID        string // webhook-id
	Type      string // the payload's type
	Body      []byte
	Signature string
	// Verified lists the secrets (by index in the endpoint's) whose
	// verification by the reference library passed.
	Verified []int
	Answered int // the status the endpoint answered
	At       time.Time
}

// WebhookEndpoint is a receiver of webhooks on 127.0.0.1 that verifies each
// request with the Standard Webhooks reference library (Go) and by hand
// (signedPerSpec) against every secret it was given, keeps what it received, and answers 503 while told
// to fail (FailNext, Failing). A request no secret verifies is answered
// 401 and kept, Verified empty.
type WebhookEndpoint struct {
	URL string

	mu       sync.Mutex
	secrets  []string
	got      []Webhook
	failNext int
	failing  bool
	hangNext int
	arrived  chan struct{}
}

// NewWebhookEndpoint starts the endpoint; it stops with the test.
func NewWebhookEndpoint(t testing.TB) *WebhookEndpoint {
	e := &WebhookEndpoint{arrived: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(srv.Close)
	e.URL = srv.URL + "/hooks"
	return e
}

// SetSecrets sets the secrets (whsec_…) requests are verified against.
func (e *WebhookEndpoint) SetSecrets(secrets ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.secrets = append([]string(nil), secrets...)
}

// FailNext has the next n requests answered 503.
func (e *WebhookEndpoint) FailNext(n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failNext = n
}

// HangNext has the next n (verified) requests kept and never answered: the
// endpoint holds each until its client goes away (a sender killed
// mid-delivery). Such a request is kept with Answered 0.
func (e *WebhookEndpoint) HangNext(n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hangNext = n
}

// Failing has every request answered 503 until told otherwise.
func (e *WebhookEndpoint) Failing(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failing = on
}

// Received returns every request received so far, in order.
func (e *WebhookEndpoint) Received() []Webhook {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Webhook(nil), e.got...)
}

// Wait waits until n requests arrived, or fails the test after d.
func (e *WebhookEndpoint) Wait(t testing.TB, n int, d time.Duration) []Webhook {
	t.Helper()
	end := time.After(d)
	for {
		if got := e.Received(); len(got) >= n {
			return got
		}
		select {
		case <-e.arrived:
		case <-end:
			t.Fatalf("webhook endpoint: %d requests after %s, want %d", len(e.Received()), d, n)
		}
	}
}

func (e *WebhookEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var p struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(body, &p)
	h := Webhook{ID: r.Header.Get("webhook-id"), Type: p.Type, Body: body, Signature: r.Header.Get("webhook-signature"), At: time.Now()}
	e.mu.Lock()
	hang := false
	defer func() {
		e.got = append(e.got, h)
		e.mu.Unlock()
		select {
		case e.arrived <- struct{}{}:
		default:
		}
		if hang {
			<-r.Context().Done()
		} else {
			w.WriteHeader(h.Answered)
		}
	}()
	for i, s := range e.secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err == nil && wh.Verify(body, r.Header) == nil && signedPerSpec(s, r.Header, body) {
			h.Verified = append(h.Verified, i)
		}
	}
	switch {
	case len(h.Verified) == 0:
		h.Answered = http.StatusUnauthorized
	case e.hangNext > 0:
		e.hangNext--
		hang = true
	case e.failing || e.failNext > 0:
		e.failNext--
		h.Answered = http.StatusServiceUnavailable
	default:
		h.Answered = http.StatusNoContent
	}
}
