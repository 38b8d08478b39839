package receipt_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// TestKeptKeysVerify: a receipt signed under an old SECRET_KEY's keys
// verifies with the new keyring once it keeps their public keys (as the
// database keeps them across a rotation), and appears once in the JWK
// Set; without them it does not. A private key, or a key of another kind,
// is refused as a kept key.
func TestKeptKeysVerify(t *testing.T) {
	t.Parallel()
	issuer := "https://taasky.example"
	old, current := keyring(t, issuer, 2, "old-secret"), keyring(t, issuer, 2, "new-secret")
	token, err := old.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := current.Verify(token); err == nil {
		t.Fatal("a receipt of the old keys verified with the new keyring alone")
	}
	// As the database gives them back: JSON.
	var kept []jose.JSONWebKey
	for _, k := range old.Public() {
		b, _ := json.Marshal(k)
		var back jose.JSONWebKey
		if err := back.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, back)
	}
	if err := current.Keep(append(kept, current.Public()...)); err != nil {
		t.Fatal(err)
	}
	if err := current.Keep(kept); err != nil {
		t.Fatal(err)
	}
	if r, err := current.Verify(token); err != nil || r.Room.ID != 42 {
		t.Fatalf("the old receipt with the kept keys: %v", err)
	}
	if n := len(current.JWKS().Keys); n != 6 {
		t.Errorf("the JWK Set has %d keys, want 6 (versions 1 to 3 of each secret, each once)", n)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]any{"private": ed25519.NewKeyFromSeed(make([]byte, 32)), "symmetric": []byte("secret"),
		"public ECDSA": &ec.PublicKey} {
		if err := current.Keep([]jose.JSONWebKey{{Key: k, KeyID: "x"}}); err == nil {
			t.Errorf("a %s key was kept", name)
		}
	}
}
