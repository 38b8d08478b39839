package receipt_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/taasky/taasky/receipt"
)

// signAs signs payload as k's current key would (the key derived from
// secret at version), with header typ typ ("" for none): a receipt only
// the issuer could have made, whatever it says.
func signAs(t *testing.T, k *receipt.Keyring, secret string, version int, typ string, payload []byte) string {
	t.Helper()
	seed := sha256.Sum256([]byte(fmt.Sprintf("%s/receipt/v%d", secret, version)))
	key := jose.JSONWebKey{Key: ed25519.NewKeyFromSeed(seed[:]), KeyID: k.KeyID(), Algorithm: string(jose.EdDSA)}
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSignedButNotAReceipt: a JWS the issuer's key did sign is still
// refused as malformed when it is not a whole receipt of this format:
// every fact present, none unknown, its kid the header's, its header typ
// a receipt's. A verifier never takes half a receipt for one.
func TestSignedButNotAReceipt(t *testing.T) {
	const issuer, secret = "https://taasky.example", "secret"
	k := keyring(t, issuer, 1, secret)
	good, err := k.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	payload := func(edit func(m map[string]any)) []byte {
		r := sample()
		r.Type, r.Issuer, r.KeyID = receipt.Type, issuer, k.KeyID()
		b, _ := json.Marshal(r)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ = json.Marshal(m)
		return b
	}
	// The signing helper makes what Sign makes: the control case verifies.
	if _, err := k.Verify(signAs(t, k, secret, 1, receipt.HeaderType, payload(func(map[string]any) {}))); err != nil {
		t.Fatalf("a whole receipt signed by hand: %v", err)
	}
	cases := map[string]struct {
		token string
		want  string // in the one-line reason
	}{
		"no header typ":       {signAs(t, k, secret, 1, "", payload(func(map[string]any) {})), "header typ"},
		"another header typ":  {signAs(t, k, secret, 1, "JWT", payload(func(map[string]any) {})), "header typ"},
		"not JSON":            {signAs(t, k, secret, 1, receipt.HeaderType, []byte("agreed, trust me")), "not a receipt"},
		"an unknown fact":     {signAs(t, k, secret, 1, receipt.HeaderType, payload(func(m map[string]any) { m["limit"] = "900" })), "not a receipt"},
		"another format":      {signAs(t, k, secret, 1, receipt.HeaderType, payload(func(m map[string]any) { m["typ"] = "taasky-receipt/2" })), "payload typ"},
		"another kid inside":  {signAs(t, k, secret, 1, receipt.HeaderType, payload(func(m map[string]any) { m["kid"] = "taasky-receipt-9-x" })), "differs from the header"},
		"room 0":              {signAs(t, k, secret, 1, receipt.HeaderType, payload(func(m map[string]any) { m["room"].(map[string]any)["id"] = 0 })), "lacks"},
		"whitespace for text": {" \n", "1 to"},
		"longer than 256 KiB": {strings.Repeat("a", 256<<10+1), "1 to"},
		// One spelling of a receipt's facts: encoding/json would read
		// each of these as the receipt it spells besides.
		"bytes after the receipt": {signAs(t, k, secret, 1, receipt.HeaderType, append(payload(func(map[string]any) {}), " and more"...)), "not a receipt"},
		"a second receipt after":  {signAs(t, k, secret, 1, receipt.HeaderType, append(payload(func(map[string]any) {}), payload(func(map[string]any) {})...)), "not a receipt"},
		"a name in capitals":      {signAs(t, k, secret, 1, receipt.HeaderType, respell(payload(func(map[string]any) {}), `"iss":`, `"ISS":`)), "not a receipt"},
		"terms twice":             {signAs(t, k, secret, 1, receipt.HeaderType, respell(payload(func(map[string]any) {}), `"terms":`, `"terms":{},"terms":`)), "not a receipt"},
		// A token of four segments, the last not base64url: refused, not
		// judged as a fourth named part.
		"four segments": {good + ".x=", ""},
	}
	for _, fact := range []string{"iss", "kid", "issued_at", "room", "subject_hash", "terms", "log"} {
		cases["without "+fact] = struct{ token, want string }{
			signAs(t, k, secret, 1, receipt.HeaderType, payload(func(m map[string]any) { delete(m, fact) })), "lacks"}
	}
	for _, side := range []string{"a", "b"} {
		cases["without "+side+"'s confirmation time"] = struct{ token, want string }{
			signAs(t, k, secret, 1, receipt.HeaderType, payload(func(m map[string]any) {
				delete(m["parties"].(map[string]any)[side].(map[string]any)["confirmation"].(map[string]any), "at")
			})), "lacks"}
	}
	for name, c := range cases {
		_, err := k.Verify(c.token)
		if receipt.ProblemOf(err) != receipt.ProblemMalformed || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want malformed (%q)", name, err, c.want)
		}
	}
}

// respell replaces the one occurrence of old in payload with new.
func respell(payload []byte, old, new string) []byte {
	if strings.Count(string(payload), old) != 1 {
		panic("respell: " + old + " is not in the payload once")
	}
	return []byte(strings.Replace(string(payload), old, new, 1))
}

// TestVerifyWhatAVerifierHas: a receipt copied with the line break a
// terminal or mail adds still verifies; with any issuer accepted, a good
// receipt verifies and one under an unpublished kid is unknown_key (not
// foreign: no issuer was expected); without keys at all it is unknown_key
// too, and one under an unpublished kid whose payload is no receipt is
// malformed.
func TestVerifyWhatAVerifierHas(t *testing.T) {
	const issuer = "https://taasky.example"
	k := keyring(t, issuer, 1, "secret")
	token, err := k.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	if r, err := k.Verify("\n" + token + "\r\n"); err != nil || r.Room.ID != 42 {
		t.Errorf("a receipt between line breaks: %v", err)
	}
	if r, err := receipt.Verify(token, "", k.JWKS()); err != nil || r.Issuer != issuer {
		t.Errorf("any issuer accepted: %v", err)
	}
	parts := strings.Split(token, ".")
	unknown := headerWith(t, parts, "kid", "taasky-receipt-9-xxxxxxxxxxxx")
	if _, err := receipt.Verify(unknown, "", k.JWKS()); receipt.ProblemOf(err) != receipt.ProblemUnknownKey {
		t.Errorf("an unpublished kid, any issuer accepted: %v, want unknown_key", err)
	}
	if _, err := receipt.Verify(token, issuer, nil); receipt.ProblemOf(err) != receipt.ProblemUnknownKey {
		t.Errorf("no keys given: %v, want unknown_key", err)
	}
	garbage := headerWith(t, []string{parts[0], "bm90IGEgcmVjZWlwdA", parts[2]}, "kid", "taasky-receipt-9-xxxxxxxxxxxx")
	if _, err := k.Verify(garbage); receipt.ProblemOf(err) != receipt.ProblemMalformed {
		t.Errorf("an unpublished kid over a payload that is no receipt: %v, want malformed", err)
	}
}

// TestSignKeepsTheTitleAsWritten: a title's &, < and > are in the signed
// payload as the inviter wrote them (not \u0026 escapes a reader of the
// JSON would see), and terms that are not JSON are refused, not signed.
func TestSignKeepsTheTitleAsWritten(t *testing.T) {
	k := keyring(t, "https://taasky.example", 1, "secret")
	r := sample()
	r.Room.Title = "R&D <Q4> fee"
	token, err := k.Sign(r)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := verifyJWX(t, k.JWKSJSON(), token)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(payload), `"title":"R&D <Q4> fee"`) {
		t.Errorf("payload %s: the title is not as written", payload)
	}
	r = sample()
	r.Terms = json.RawMessage(`{"fee":`)
	if tok, err := k.Sign(r); err == nil {
		t.Errorf("terms that are not JSON were signed: %s", tok)
	}
}

// TestKeyringRefusals: key versions are 1 to MaxKeyVersion, a seed is 32
// bytes; a kept key needs a kid, and a kid given twice is published once.
// Kept tells the kept keys from the derived ones.
func TestKeyringRefusals(t *testing.T) {
	seed := func(v int) []byte { s := sha256.Sum256(fmt.Appendf(nil, "s/%d", v)); return s[:] }
	for _, v := range []int{0, -1, receipt.MaxKeyVersion + 1} {
		if _, err := receipt.NewKeyring("https://taasky.example", v, seed); err == nil || !strings.Contains(err.Error(), "versions are 1 to") {
			t.Errorf("version %d: %v, want refused", v, err)
		}
	}
	for _, v := range []int{1, receipt.MaxKeyVersion} {
		k, err := receipt.NewKeyring("https://taasky.example", v, seed)
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if want := min(v+1, receipt.MaxKeyVersion); len(k.JWKS().Keys) != want {
			t.Errorf("version %d publishes %d keys, want %d", v, len(k.JWKS().Keys), want)
		}
	}
	if _, err := receipt.NewKeyring("https://taasky.example", 1, func(int) []byte { return make([]byte, 16) }); err == nil || !strings.Contains(err.Error(), "seed of 16 bytes") {
		t.Errorf("a 16-byte seed: %v, want refused", err)
	}

	old, current := keyring(t, "https://taasky.example", 1, "old"), keyring(t, "https://taasky.example", 1, "new")
	noKid := old.Public()[0]
	noKid.KeyID = ""
	if err := current.Keep([]jose.JSONWebKey{noKid}); err == nil {
		t.Error("a kept key without a kid was taken")
	}
	pub := old.Public()
	if err := current.Keep(append(pub, pub...)); err != nil {
		t.Fatal(err)
	}
	if n := len(current.JWKS().Keys); n != 4 {
		t.Errorf("the JWK Set has %d keys, want 4 (each kid once)", n)
	}
	if !current.Kept(old.KeyID()) || current.Kept(current.KeyID()) || current.Kept("nobody") {
		t.Errorf("Kept: old %v, own %v, unknown %v; want true, false, false",
			current.Kept(old.KeyID()), current.Kept(current.KeyID()), current.Kept("nobody"))
	}
}
