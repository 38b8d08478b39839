package notifytest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Push is one push the endpoint received, verified and decrypted.
type Push struct {
	Device    string // the device's name (Device.Name)
	Plaintext []byte
	Body      []byte // the encrypted body as it came
	TTL       string
	Urgency   string
	// Topic is the RFC 8030 Topic header ("" for none): the push service
	// keeps one undelivered push per device and topic.
	Topic string
	JWT   map[string]any
}

// Device is one browser's push subscription: the endpoint's URL and the
// keys a browser would hand to the server (p256dh, auth), with the private
// key the browser keeps to decrypt.
type Device struct {
	Name     string
	Endpoint string
	P256dh   string
	Auth     string
	priv     *ecdh.PrivateKey
	auth     []byte
}

// PushEndpoint is a push service: each device has an endpoint URL on it. It
// answers 201 to a push whose VAPID JWT verifies with VAPIDPublic and whose
// payload decrypts, 410 for a device marked gone, 503 while it is made
// unavailable (Unavailable), and 400 otherwise.
type PushEndpoint struct {
	URL         string
	VAPIDPublic string // base64url, the application server's key

	mu          sync.Mutex
	devices     map[string]*Device
	gone        map[string]bool
	unavailable int // answer this many more pushes 503
	refused     int // pushes answered 503 so far
	pushes      []Push
	errs        []error
}

// Unavailable makes the endpoint answer the next n pushes (to any device)
// 503 Service Unavailable, as a push service that is down does.
func (p *PushEndpoint) Unavailable(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unavailable = n
}

// Refused is how many pushes were answered 503 (Unavailable).
func (p *PushEndpoint) Refused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// NewPushEndpoint starts an endpoint expecting pushes signed with the VAPID
// key vapidPublic; it stops when the test ends.
func NewPushEndpoint(t testing.TB, vapidPublic string) *PushEndpoint {
	t.Helper()
	p := &PushEndpoint{VAPIDPublic: vapidPublic, devices: map[string]*Device{}, gone: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// NewDevice makes a subscription on the endpoint, as a browser would.
func (p *PushEndpoint) NewDevice(t testing.TB, name string) *Device {
	t.Helper()
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	d := &Device{Name: name, Endpoint: p.URL + "/push/" + base64.RawURLEncoding.EncodeToString(id),
		P256dh: base64.RawURLEncoding.EncodeToString(priv.PublicKey().Bytes()),
		Auth:   base64.RawURLEncoding.EncodeToString(auth), priv: priv, auth: auth}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.devices[strings.TrimPrefix(d.Endpoint, p.URL)] = d
	return d
}

// Gone makes the endpoint answer 410 for the device from now on.
func (p *PushEndpoint) Gone(d *Device) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone[strings.TrimPrefix(d.Endpoint, p.URL)] = true
}

// Pushes returns the verified pushes so far.
func (p *PushEndpoint) Pushes() []Push {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Push(nil), p.pushes...)
}

// Errors returns why refused pushes were refused.
func (p *PushEndpoint) Errors() []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]error(nil), p.errs...)
}

// Wait returns once n pushes arrived, or fails the test after timeout.
func (p *PushEndpoint) Wait(t testing.TB, n int, timeout time.Duration) []Push {
	t.Helper()
	end := time.Now().Add(timeout)
	for time.Now().Before(end) {
		if got := p.Pushes(); len(got) >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("push: %d pushes after %s, want %d (refused: %v)", len(p.Pushes()), timeout, n, p.Errors())
	return nil
}

func (p *PushEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	d, gone, down := p.devices[r.URL.Path], p.gone[r.URL.Path], p.unavailable > 0
	if down {
		p.unavailable--
		p.refused++
	}
	p.mu.Unlock()
	if down {
		http.Error(w, "try again later", http.StatusServiceUnavailable)
		return
	}
	if d == nil {
		http.Error(w, "no such subscription", http.StatusNotFound)
		return
	}
	if gone {
		http.Error(w, "subscription expired", http.StatusGone)
		return
	}
	push, err := p.verify(r, d, body)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.errs = append(p.errs, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.pushes = append(p.pushes, *push)
	w.WriteHeader(http.StatusCreated)
}

func (p *PushEndpoint) verify(r *http.Request, d *Device, body []byte) (*Push, error) {
	if r.Method != http.MethodPost {
		return nil, fmt.Errorf("method %s", r.Method)
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "aes128gcm" {
		return nil, fmt.Errorf("Content-Encoding %q", ce)
	}
	if r.Header.Get("TTL") == "" {
		return nil, errors.New("no TTL")
	}
	// RFC 8030 §5.4: a push service refuses a longer topic, or one outside
	// the URL-safe base64 alphabet.
	topic := r.Header.Get("Topic")
	if len(topic) > 32 || strings.Trim(topic, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return nil, fmt.Errorf("topic header %q: more than 32 characters, or not URL-safe base64", topic)
	}
	claims, err := verifyVAPID(r.Header.Get("Authorization"), p.VAPIDPublic, p.URL)
	if err != nil {
		return nil, err
	}
	plain, err := Decrypt(body, d.priv, d.auth)
	if err != nil {
		return nil, err
	}
	return &Push{Device: d.Name, Plaintext: plain, Body: body, TTL: r.Header.Get("TTL"),
		Urgency: r.Header.Get("Urgency"), Topic: topic, JWT: claims}, nil
}

// verifyVAPID checks "vapid t=<JWT>, k=<key>" (RFC 8292): k is the expected
// key, the JWT is ES256-signed with it, its aud is the endpoint's origin,
// it has not expired (and expires within 24 hours), and sub is a contact.
func verifyVAPID(header, wantKey, origin string) (map[string]any, error) {
	rest, ok := strings.CutPrefix(header, "vapid ")
	if !ok {
		return nil, fmt.Errorf("authorization header %q: not vapid", header)
	}
	var token, key string
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			token = v
		case "k":
			key = v
		}
	}
	if key != strings.TrimRight(wantKey, "=") {
		return nil, fmt.Errorf("vapid k=%q, want the server's key", key)
	}
	pub, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil || len(pub) != 65 {
		return nil, fmt.Errorf("vapid k: %v", err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("vapid t: not a JWT")
	}
	var head map[string]any
	if err := decodeSegment(parts[0], &head); err != nil || head["alg"] != "ES256" {
		return nil, fmt.Errorf("vapid JWT header %v: %v", head, err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return nil, errors.New("vapid JWT signature: not 64 bytes")
	}
	vapidKey, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pub)
	if err != nil {
		return nil, fmt.Errorf("vapid k: %w", err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(vapidKey, digest[:],
		new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return nil, errors.New("vapid JWT: the signature does not verify with the server's key")
	}
	var claims map[string]any
	if err := decodeSegment(parts[1], &claims); err != nil {
		return nil, err
	}
	if claims["aud"] != origin {
		return nil, fmt.Errorf("vapid aud %v, want %s", claims["aud"], origin)
	}
	exp, _ := claims["exp"].(float64)
	if now := float64(time.Now().Unix()); exp < now || exp > now+24*3600 {
		return nil, fmt.Errorf("vapid exp %v out of range", claims["exp"])
	}
	if sub, _ := claims["sub"].(string); !strings.HasPrefix(sub, "mailto:") && !strings.HasPrefix(sub, "https:") {
		return nil, fmt.Errorf("vapid sub %q: not a contact", sub)
	}
	return claims, nil
}

func decodeSegment(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Decrypt opens an RFC 8291 aes128gcm body with the subscription's private
// key and auth secret.
func Decrypt(body []byte, priv *ecdh.PrivateKey, authSecret []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("aes128gcm: short body")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if len(body) < 21+idlen || rs < 18 {
		return nil, errors.New("aes128gcm: bad header")
	}
	asPub, ciphertext := body[21:21+idlen], body[21+idlen:]
	if len(ciphertext) > int(rs) {
		return nil, errors.New("aes128gcm: more than one record")
	}
	senderKey, err := ecdh.P256().NewPublicKey(asPub)
	if err != nil {
		return nil, fmt.Errorf("aes128gcm keyid: %w", err)
	}
	shared, err := priv.ECDH(senderKey)
	if err != nil {
		return nil, err
	}
	// RFC 8291 §3.4: IKM from the ECDH secret, the auth secret and both keys.
	keyInfo := append(append([]byte("WebPush: info\x00"), priv.PublicKey().Bytes()...), asPub...)
	ikm, err := hkdf.Key(sha256.New, shared, authSecret, string(keyInfo), 32)
	if err != nil {
		return nil, err
	}
	// RFC 8188 §2.2, 2.3: the content key and nonce from the salt.
	cek, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, ciphertext, nil)
	if err != nil {
		return nil, fmt.Errorf("aes128gcm: %w", err)
	}
	// The last record: data, then the delimiter 0x02, then zero padding.
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 0x02 {
		return nil, errors.New("aes128gcm: no last-record delimiter")
	}
	return plain[:len(plain)-1], nil
}
