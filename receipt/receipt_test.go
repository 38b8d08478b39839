package receipt_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/taasky/taasky/receipt"
)

func keyring(t *testing.T, issuer string, version int, secret string) *receipt.Keyring {
	t.Helper()
	k, err := receipt.NewKeyring(issuer, version, func(v int) []byte {
		s := sha256.Sum256([]byte(fmt.Sprintf("%s/receipt/v%d", secret, v)))
		return s[:]
	})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func sample() *receipt.Receipt {
	at := time.Date(2026, 10, 12, 9, 8, 0, 0, time.UTC)
	return &receipt.Receipt{
		IssuedAt: at.Add(time.Minute),
		Room:     receipt.Room{ID: 42, Title: "Fee for the Q4 audit", AgreedAt: at},
		Parties: receipt.Parties{
			A: receipt.Party{Account: "Acme", Schema: json.RawMessage(`{"fee":{"currency":"EUR","label":"Fee","type":"money"}}`),
				Confirmation: receipt.Confirmation{By: "Ada Lovelace", Channel: receipt.ChannelDashboard, Verdict: "approve", At: at.Add(-time.Hour)}},
			B: receipt.Party{Account: "Globex", Schema: json.RawMessage(`{"fee":{"currency":"EUR","label":"Price","type":"money"}}`),
				Confirmation: receipt.Confirmation{By: "Grace Hopper", Channel: receipt.ChannelEmail, Verdict: "approve", At: at}},
		},
		Terms:       json.RawMessage(`{"fee":{"amount":"1200.00","currency":"EUR"}}`),
		SubjectHash: "sha256:" + strings.Repeat("ab", 32),
		Log:         receipt.Log{Head: "sha256:" + strings.Repeat("cd", 32), Events: 7},
	}
}

// verifyJWX verifies with lestrrat-go/jwx, another JOSE implementation than
// the go-jose that signs, against the published JWK Set.
func verifyJWX(t *testing.T, jwksJSON []byte, token string) ([]byte, error) {
	t.Helper()
	set, err := jwk.Parse(jwksJSON)
	if err != nil {
		t.Fatalf("jwx reads the JWK Set: %v", err)
	}
	return jws.Verify([]byte(token), jws.WithKeySet(set, jws.WithRequireKid(true)))
}

// TestReceiptVerifiedByAnotherJOSE: a receipt signed here verifies with
// jwx against the published set, after a rotation too; a change to any
// one fact of its payload, to its header, or to its signature makes both
// jwx and Verify refuse it, Verify saying which problem in one line.
func TestReceiptVerifiedByAnotherJOSE(t *testing.T) {
	const issuer = "https://taasky.example"
	k1 := keyring(t, issuer, 1, "secret")
	old, err := k1.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	k := keyring(t, issuer, 2, "secret") // rotated: v2 signs, v1 still published
	token, err := k.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{old, token} {
		payload, err := verifyJWX(t, k.JWKSJSON(), tok)
		if err != nil {
			t.Fatalf("jwx refuses a good receipt: %v", err)
		}
		r, err := k.Verify(tok)
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if !bytes.Contains(payload, []byte(`"by":"Grace Hopper"`)) || r.Parties.B.Confirmation.Channel != receipt.ChannelEmail {
			t.Fatalf("payload %s", payload)
		}
	}
	if k1.KeyID() == k.KeyID() || !strings.HasPrefix(k.KeyID(), "taasky-receipt-2-") {
		t.Fatalf("kids %s, %s", k1.KeyID(), k.KeyID())
	}

	parts := strings.Split(token, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var facts map[string]any
	if err := json.Unmarshal(raw, &facts); err != nil {
		t.Fatal(err)
	}
	leaves := 0
	for _, path := range leafPaths(facts, "") {
		leaves++
		changed := withLeafChanged(t, raw, path)
		forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString(changed) + "." + parts[2]
		if _, err := verifyJWX(t, k.JWKSJSON(), forged); err == nil {
			t.Errorf("%s changed: jwx accepts it", path)
		}
		_, err := k.Verify(forged)
		// Every change is tampered, the issuer's and the format's too: the
		// signature is checked before anything the payload says is judged,
		// whether an issuer is expected or any is accepted.
		if got := receipt.ProblemOf(err); got != receipt.ProblemTampered {
			t.Errorf("%s changed: Verify says %v, want tampered", path, err)
		}
		if _, err := receipt.Verify(forged, "", k.JWKS()); receipt.ProblemOf(err) != receipt.ProblemTampered {
			t.Errorf("%s changed, any issuer accepted: Verify says %v, want tampered", path, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: more than one line: %q", path, err)
		}
	}
	if leaves < 20 {
		t.Fatalf("only %d facts were changed one by one", leaves)
	}

	// Before the rotation, the next key is published ahead: a v2 receipt
	// (of a process already raised) verifies against v1's set, which signs
	// with v1; a v3 one does not.
	if k1.KeyID() != k1.JWKS().Keys[0].KeyID || len(k1.JWKS().Keys) != 2 {
		t.Fatalf("v1 signs with %s and publishes %d keys, want v1 and v1, v2", k1.KeyID(), len(k1.JWKS().Keys))
	}
	if _, err := k1.Verify(token); err != nil {
		t.Errorf("a v2 receipt against v1's keys (v2 published ahead): %v", err)
	}
	if _, err := verifyJWX(t, k1.JWKSJSON(), token); err != nil {
		t.Errorf("jwx, a v2 receipt against v1's set: %v", err)
	}
	v3, err := keyring(t, issuer, 3, "secret").Sign(sample())
	if err != nil {
		t.Fatal(err)
	}

	// The signature, the header's kid, the form, another issuer's keys.
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sig[0] ^= 1
	cases := map[string]struct {
		token string
		k     *receipt.Keyring
		want  receipt.Problem
	}{
		"a flipped signature bit":                {parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig), k, receipt.ProblemTampered},
		"a kid nobody published":                 {headerWith(t, parts, "kid", "taasky-receipt-9-xxxxxxxxxxxx"), k, receipt.ProblemUnknownKey},
		"not a JWS":                              {"hello", k, receipt.ProblemMalformed},
		"two parts":                              {parts[0] + "." + parts[1], k, receipt.ProblemMalformed},
		"another alg":                            {headerWith(t, parts, "alg", "HS256"), k, receipt.ProblemMalformed},
		"another issuer":                         {token, keyring(t, "https://other.example", 2, "secret"), receipt.ProblemForeign},
		"the same issuer's name with other keys": {token, keyring(t, issuer, 2, "other secret"), receipt.ProblemUnknownKey},
		"two rotations ahead, a v3 receipt":      {v3, k1, receipt.ProblemUnknownKey},
		"another issuer's name, a kid not there": {headerWith(t, []string{parts[0], base64.RawURLEncoding.EncodeToString(withLeafChanged(t, raw, "iss")), parts[2]}, "kid", "evil-1"), k, receipt.ProblemForeign},
	}
	for name, c := range cases {
		_, err := c.k.Verify(c.token)
		if got := receipt.ProblemOf(err); got != c.want {
			t.Errorf("%s: %v, want %s", name, err, c.want)
		}
		if _, err := verifyJWX(t, c.k.JWKSJSON(), c.token); err == nil && c.want != receipt.ProblemForeign {
			t.Errorf("%s: jwx accepts it", name)
		}
	}
}

// TestReceiptHasOneSpelling: a receipt whose header, payload or signature
// is spelt otherwise in base64url (the last character changed only in its
// unused bits, a line break, padding) decodes to the same bytes, which
// lenient decoders accept; Verify refuses it as malformed, naming the
// segment, so that a receipt has one valid spelling.
func TestReceiptHasOneSpelling(t *testing.T) {
	k := keyring(t, "https://taasky.example", 1, "secret")
	token, err := k.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Verify(token); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(token, ".")
	names := []string{"header", "payload", "signature"}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	with := func(i int, seg string) string {
		p := slices.Clone(parts)
		p[i] = seg
		return strings.Join(p, ".")
	}
	lowBits := 0
	for i, seg := range parts {
		spellings := map[string]string{"a line break": seg[:4] + "\n" + seg[4:], "padding": seg + "="}
		if len(seg)%4 != 0 { // the last character has unused bits
			last := strings.IndexByte(alphabet, seg[len(seg)-1])
			spellings["the last character's unused bits"] = seg[:len(seg)-1] + string(alphabet[last^1])
			lowBits++
		}
		for how, other := range spellings {
			a, _ := base64.RawURLEncoding.DecodeString(strings.TrimSuffix(strings.ReplaceAll(other, "\n", ""), "="))
			b, _ := base64.RawURLEncoding.DecodeString(seg)
			if how != "padding" && !bytes.Equal(a, b) {
				t.Fatalf("%s, %s: not the same bytes", names[i], how)
			}
			_, err := k.Verify(with(i, other))
			if receipt.ProblemOf(err) != receipt.ProblemMalformed || !strings.Contains(err.Error(), "the "+names[i]+" is not canonical base64url") {
				t.Errorf("%s spelt otherwise (%s): %v, want malformed naming it", names[i], how, err)
			}
		}
	}
	if lowBits == 0 {
		t.Fatal("no segment has unused bits: the signature (64 bytes) should")
	}
}

// leafPaths lists every value of v that is not an object, as a.b.c
// (array items by index).
func leafPaths(v any, prefix string) []string {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(out, leafPaths(e, join(k))...)
		}
		return out
	case []any:
		var out []string
		for i, e := range x {
			out = append(out, leafPaths(e, join(fmt.Sprint(i)))...)
		}
		return out
	}
	return []string{prefix}
}

// withLeafChanged returns the payload with the value at path changed (a
// moment one second more, another string an x, a number one more, a bool flipped).
func withLeafChanged(t *testing.T, raw []byte, path string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	keys := strings.Split(path, ".")
	parent := v
	for _, k := range keys[:len(keys)-1] {
		parent = parent.(map[string]any)[k]
	}
	m := parent.(map[string]any)
	last := keys[len(keys)-1]
	switch x := m[last].(type) {
	case string:
		if at, err := time.Parse(time.RFC3339, x); err == nil {
			m[last] = at.Add(time.Second).Format(time.RFC3339) // still a moment
		} else {
			m[last] = x + "x"
		}
	case float64:
		m[last] = x + 1
	case bool:
		m[last] = !x
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func headerWith(t *testing.T, parts []string, name, value string) string {
	t.Helper()
	raw, _ := base64.RawURLEncoding.DecodeString(parts[0])
	var h map[string]any
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	h[name] = value
	b, _ := json.Marshal(h)
	return base64.RawURLEncoding.EncodeToString(b) + "." + parts[1] + "." + parts[2]
}
