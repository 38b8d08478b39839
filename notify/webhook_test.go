package notify_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/taasky/taasky/internal/netguard"
	"github.com/taasky/taasky/notify"
)

// TestSignWebhookRefusesWhatCannotSign: a message is never sent unsigned
// or signed with something that is not a Standard Webhooks secret: no
// secret, a secret without its whsec_ prefix (which the reference library
// would take as raw base64), or one whose base64 is broken, is an error,
// never an empty or partial signature.
func TestSignWebhookRefusesWhatCannotSign(t *testing.T) {
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	good := "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	for name, secrets := range map[string][]string{
		"no secret":           nil,
		"without whsec_":      {strings.TrimPrefix(good, "whsec_")},
		"broken base64":       {"whsec_!!not base64!!"},
		"a good and a broken": {good, "whsec_!!not base64!!"},
	} {
		sig, err := notify.SignWebhook("msg_1", at, []byte(`{}`), secrets)
		if err == nil || sig != "" {
			t.Errorf("%s: signature %q, error %v; want an error and no signature", name, sig, err)
		}
	}
}

// TestWebhookSentSignedByEachSecret: what Send posts verifies with the
// Standard Webhooks reference library under each secret on its own (the
// receiver holds one of them during a rotation), its timestamp the
// message's moment; a changed body or a stale timestamp is refused.
func TestWebhookSentSignedByEachSecret(t *testing.T) {
	secrets := []string{"whsec_" + base64.StdEncoding.EncodeToString([]byte("the first secret, thirty-two b!!")),
		"whsec_" + base64.StdEncoding.EncodeToString([]byte("the second secret, 32 bytes long"))}
	got := make(chan *http.Request, 1)
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	at := time.Now().Truncate(time.Second)
	body := []byte(`{"type":"room.agreed"}`)
	code, err := notify.NewWebhookSender(true, nil).Send(context.Background(),
		notify.WebhookMessage{URL: srv.URL, ID: "msg_2", Secrets: secrets, Payload: body, At: at})
	if err != nil || code != http.StatusNoContent {
		t.Fatalf("send: %d %v", code, err)
	}
	r, received := <-got, <-bodies
	if r.Header.Get("webhook-id") != "msg_2" || r.Header.Get("webhook-timestamp") != strconv.FormatInt(at.Unix(), 10) {
		t.Errorf("headers %v", r.Header)
	}
	if sigs := strings.Split(r.Header.Get("webhook-signature"), " "); len(sigs) != 2 {
		t.Errorf("webhook-signature %q: want one v1 signature per secret, separated by a space", r.Header.Get("webhook-signature"))
	}
	for i, s := range secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(received, r.Header); err != nil {
			t.Errorf("secret %d alone does not verify the delivery: %v", i, err)
		}
		if err := wh.Verify(append(received, ' '), r.Header); err == nil {
			t.Errorf("secret %d verifies a changed body", i)
		}
		stale := r.Header.Clone()
		stale.Set("webhook-timestamp", strconv.FormatInt(at.Add(-time.Hour).Unix(), 10))
		if err := wh.Verify(received, stale); err == nil {
			t.Errorf("secret %d verifies a changed timestamp", i)
		}
	}
}

// TestWebhookSenderGuardsTheAddressDialled: the sender as the service
// builds it outside dev and tests (AllowInternal off) never connects to a
// loopback address, whatever the URL names (a literal, or localhost): the
// receiver sees no request, and the error wraps netguard.ErrRefused. A
// redirect is not followed: a 3xx is a failed attempt, and the server it
// points to is never asked.
func TestWebhookSenderGuardsTheAddressDialled(t *testing.T) {
	var hits atomic.Int32
	inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer inside.Close()
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("a secret of thirty-two bytes !!!"))
	msg := notify.WebhookMessage{ID: "msg_3", Secrets: []string{secret}, Payload: []byte(`{}`), At: time.Now()}
	guarded := notify.NewWebhookSender(false, nil)
	for _, u := range []string{inside.URL, strings.Replace(inside.URL, "127.0.0.1", "localhost", 1)} {
		msg.URL = u
		code, err := guarded.Send(context.Background(), msg)
		if err == nil || code != 0 || !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("%s: %d %v, want refused (netguard.ErrRefused)", u, code, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the guarded sender reached a loopback server %d times", n)
	}
	// The error names the refusal, not the URL (a receiver's URL may
	// carry its own token; the error goes to the job's log).
	msg.URL = inside.URL + "/hooks?token=s3cret"
	if _, err := guarded.Send(context.Background(), msg); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a refused dial's error quotes the URL: %v", err)
	}
	// Nothing is posted unsigned: a message without a usable secret is a
	// permanent failure before any connection.
	for _, secrets := range [][]string{nil, {"not a secret"}} {
		bad := msg
		bad.URL, bad.Secrets = inside.URL, secrets
		var perm *notify.PermanentError
		if code, err := notify.NewWebhookSender(true, nil).Send(context.Background(), bad); code != 0 || !errors.As(err, &perm) {
			t.Errorf("secrets %q: %d %v, want a permanent error", secrets, code, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("a message without a usable secret was posted (%d requests)", n)
	}

	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inside.URL, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	msg.URL = redirect.URL
	code, err := notify.NewWebhookSender(true, nil).Send(context.Background(), msg)
	if code != http.StatusTemporaryRedirect || err == nil {
		t.Errorf("a redirect: %d %v, want 307 and a failed attempt", code, err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the redirect was followed (%d requests)", n)
	}
}
