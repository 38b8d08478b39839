package notify_test

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/taasky/taasky/notify"
)

// FuzzSignWebhook signs fuzzed payloads (a room's view holds the words
// people wrote: any bytes a JSON string carries) under one or two fuzzed
// secrets, at fuzzed moments: the header holds one "v1,…" per secret,
// each verified on its own by the Standard Webhooks reference library, as
// a receiver holding that secret verifies it; the same payload with one
// byte changed verifies under none.
//
//	go test ./notify -run XXX -fuzz FuzzSignWebhook -fuzztime 1m -parallel 1
func FuzzSignWebhook(f *testing.F) {
	f.Add("msg_0123456789abcdefghijklmnop", int64(1796637600), []byte(`{"type":"room.agreed","data":{"room":{"title":"<b>&\u2028"}}}`),
		[]byte("0123456789abcdef0123456789abcdef"), []byte{})
	f.Add("msg_x", int64(0), []byte{}, []byte{0}, []byte("the second secret, 32 bytes long"))
	f.Add("msg_"+strings.Repeat("z", 24), int64(4102444800), []byte("\xff\xfe not UTF-8 \r\n"), []byte(strings.Repeat("k", 64)), []byte("k"))
	f.Fuzz(func(t *testing.T, id string, unix int64, payload, key1, key2 []byte) {
		if len(key1) == 0 || len(key1) > 64 || len(key2) > 64 || id == "" || strings.ContainsAny(id, "\r\n.") {
			return
		}
		at := time.Unix(unix%4102444800, 0)
		if unix < 0 {
			at = time.Unix(0, 0)
		}
		secrets := []string{"whsec_" + base64.StdEncoding.EncodeToString(key1)}
		if len(key2) > 0 {
			secrets = append(secrets, "whsec_"+base64.StdEncoding.EncodeToString(key2))
		}
		sig, err := notify.SignWebhook(id, at, payload, secrets)
		if err != nil {
			t.Fatalf("sign: %v", err)
		}
		if sigs := strings.Split(sig, " "); len(sigs) != len(secrets) {
			t.Fatalf("%d signatures for %d secrets: %q", len(sigs), len(secrets), sig)
		}
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
		for _, s := range secrets {
			h.Set("webhook-signature", sig)
			wh, err := standardwebhooks.NewWebhook(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := wh.VerifyIgnoringTimestamp(payload, h); err != nil {
				t.Errorf("under %s: %v", s, err)
			}
			changed := append([]byte{}, payload...)
			if len(changed) == 0 {
				changed = []byte{0}
			} else {
				changed[len(changed)/2] ^= 1
			}
			if err := wh.VerifyIgnoringTimestamp(changed, h); err == nil {
				t.Errorf("a changed payload verifies under %s", s)
			}
		}
	})
}
