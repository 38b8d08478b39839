package receipt_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/taasky/taasky/receipt"
)

// earlierReceipt is sample() as a build of taasky-receipt/1 signed it with
// the version-1 key of the secret "secret" for https://taasky.example,
// and earlierJWKS the key set that build published.
const (
	earlierReceipt = "eyJhbGciOiJFZERTQSIsImtpZCI6InRhYXNreS1yZWNlaXB0LTEtZnRJQVRCRFJpMHMzIiwidHlwIjoidGFhc2t5LXJlY2VpcHQrandzIn0." +
		"eyJ0eXAiOiJ0YWFza3ktcmVjZWlwdC8xIiwiaXNzIjoiaHR0cHM6Ly90YWFza3kuZXhhbXBsZSIsImtpZCI6InRhYXNreS1yZWNlaXB0LTEtZnRJQVRCRFJpMHMzIiwiaXNzdWVkX2F0IjoiMjAyNi0xMC0xMlQwOTowOTowMFoiLCJyb29tIjp7ImlkIjo0MiwidGl0bGUiOiJGZWUgZm9yIHRoZSBRNCBhdWRpdCIsImFncmVlZF9hdCI6IjIwMjYtMTAtMTJUMDk6MDg6MDBaIn0sInBhcnRpZXMiOnsiYSI6eyJhY2NvdW50IjoiQWNtZSIsInNjaGVtYSI6eyJmZWUiOnsiY3VycmVuY3kiOiJFVVIiLCJsYWJlbCI6IkZlZSIsInR5cGUiOiJtb25leSJ9fSwiY29uZmlybWF0aW9uIjp7ImJ5IjoiQWRhIExvdmVsYWNlIiwiY2hhbm5lbCI6ImRhc2hib2FyZCIsInZlcmRpY3QiOiJhcHByb3ZlIiwiYXQiOiIyMDI2LTEwLTEyVDA4OjA4OjAwWiJ9fSwiYiI6eyJhY2NvdW50IjoiR2xvYmV4Iiwic2NoZW1hIjp7ImZlZSI6eyJjdXJyZW5jeSI6IkVVUiIsImxhYmVsIjoiUHJpY2UiLCJ0eXBlIjoibW9uZXkifX0sImNvbmZpcm1hdGlvbiI6eyJieSI6IkdyYWNlIEhvcHBlciIsImNoYW5uZWwiOiJlbWFpbCIsInZlcmRpY3QiOiJhcHByb3ZlIiwiYXQiOiIyMDI2LTEwLTEyVDA5OjA4OjAwWiJ9fX0sInRlcm1zIjp7ImZlZSI6eyJhbW91bnQiOiIxMjAwLjAwIiwiY3VycmVuY3kiOiJFVVIifX0sInN1YmplY3RfaGFzaCI6InNoYTI1NjphYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiIiwibG9nIjp7ImhlYWQiOiJzaGEyNTY6Y2RjZGNkY2RjZGNkY2RjZGNkY2RjZGNkY2RjZGNkY2RjZGNkY2RjZGNkY2RjZGNkY2RjZGNkY2RjZGNkY2RjZCIsImV2ZW50cyI6N319." +
		"Ig1BCNsSoXeL-LWGm1loHyDHEmh7YYi7KR7piWFjeajuadd_drN9vj500GEQvzwCZrX1g4yOvIHSdfRwIa7mCw"
	earlierJWKS = `{"keys":[{"use":"sig","kty":"OKP","kid":"taasky-receipt-1-ftIATBDRi0s3","crv":"Ed25519","alg":"EdDSA","x":"oe1YjFWlwlCbtJ2IV_4lSKvsEXCVskd0iU9Y-Bn5-Nk"},` +
		`{"use":"sig","kty":"OKP","kid":"taasky-receipt-2-K_TYOBAkCgFm","crv":"Ed25519","alg":"EdDSA","x":"cv1QQaJ-3GmnvOJ8iCcUYrz6zwI_lB62jsCCBwyBQCU"}]}`
)

// TestReceiptOfAnEarlierBuildVerifies: receipts outlive the build that
// signed them: the same secret derives the same keys under the same kids
// (published with "use":"sig", as verifiers have cached them), a receipt
// an earlier build signed verifies, with every fact read back, against
// this build's keys and against the set it published, and signing the
// same facts today gives the same bytes (the format is
// taasky-receipt/1, of one spelling).
func TestReceiptOfAnEarlierBuildVerifies(t *testing.T) {
	k := keyring(t, "https://taasky.example", 1, "secret")
	if got := string(k.JWKSJSON()); got != earlierJWKS {
		t.Errorf("the same secret publishes another JWK Set:\n%s\nwant\n%s", got, earlierJWKS)
	}
	r, err := k.Verify(earlierReceipt)
	if err != nil {
		t.Fatalf("an earlier build's receipt: %v", err)
	}
	want := sample()
	if r.Room.ID != want.Room.ID || r.Room.Title != want.Room.Title || !r.Room.AgreedAt.Equal(want.Room.AgreedAt) ||
		r.SubjectHash != want.SubjectHash || r.Log != want.Log || string(r.Terms) != string(want.Terms) ||
		r.Parties.B.Confirmation.By != "Grace Hopper" || r.Parties.A.Account != "Acme" || r.KeyID != "taasky-receipt-1-ftIATBDRi0s3" {
		t.Errorf("an earlier build's receipt read as %+v", r)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal([]byte(earlierJWKS), &set); err != nil {
		t.Fatal(err)
	}
	if _, err := receipt.Verify(earlierReceipt, "https://taasky.example", &set); err != nil {
		t.Errorf("against the set an earlier build published: %v", err)
	}
	if now, err := k.Sign(sample()); err != nil || now != earlierReceipt {
		t.Errorf("the same facts signed today: %v\n%s\nwant\n%s", err, now, earlierReceipt)
	}
}

// TestReceiptAtTheSizeBound: a receipt of exactly 256 KiB (a long title)
// verifies; one byte over is refused as malformed, naming the bound.
func TestReceiptAtTheSizeBound(t *testing.T) {
	const bound = 256 << 10
	// A JWS of exactly the bound needs the right header length: the
	// key's version (the kid's digits) and the title's length are tried.
	for v := 1; v <= 20; v++ {
		k := keyring(t, "https://taasky.example", v, "secret")
		signed := func(title int) string {
			r := sample()
			r.Room.Title = strings.Repeat("t", title)
			tok, err := k.Sign(r)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		title := (bound - len(signed(0))) * 3 / 4
		for len(signed(title+1)) <= bound {
			title++
		}
		for len(signed(title)) > bound {
			title--
		}
		exact, over := signed(title), signed(title+1)
		if len(exact) != bound {
			continue
		}
		if _, err := k.Verify(exact); err != nil {
			t.Errorf("a receipt of %d bytes: %v", len(exact), err)
		}
		if _, err := k.Verify(" " + exact + "\n"); err != nil {
			t.Errorf("a receipt of %d bytes between spaces: %v", len(exact), err)
		}
		if _, err := k.Verify(over); receipt.ProblemOf(err) != receipt.ProblemMalformed || !strings.Contains(err.Error(), "1 to 262144 bytes") {
			t.Errorf("a receipt of %d bytes: %v, want malformed naming the bound", len(over), err)
		}
		return
	}
	t.Fatal("no receipt of exactly the bound was made")
}

// TestVerifyAKeyWithoutKid: a key set may hold a key without a kid (a
// verifier's own file); a receipt whose header names no kid is not
// checked against it: unknown_key, never verified by whichever key has
// no name.
func TestVerifyAKeyWithoutKid(t *testing.T) {
	const secret = "secret"
	k := keyring(t, "https://taasky.example", 1, secret)
	seed := sha256.Sum256([]byte(secret + "/receipt/v1"))
	priv := ed25519.NewKeyFromSeed(seed[:])
	token, err := k.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	// The same receipt, its header without a kid.
	parts := strings.Split(token, ".")
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: priv}, (&jose.SignerOptions{}).WithType(receipt.HeaderType))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	noKid, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	set := &jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: priv.Public(), Algorithm: string(jose.EdDSA)}}}
	if _, err := receipt.Verify(noKid, k.Issuer(), set); receipt.ProblemOf(err) != receipt.ProblemUnknownKey {
		t.Errorf("no kid, a key set with a key of no kid: %v, want unknown_key", err)
	}
}

// TestKeyVersionsAreOneToAHundred: the bound on key versions is 100, as
// RECEIPT_KEY_VERSION's rule says: 100 derives and publishes 100 keys,
// 101 is refused.
func TestKeyVersionsAreOneToAHundred(t *testing.T) {
	seed := func(v int) []byte { s := sha256.Sum256([]byte{byte(v)}); return s[:] }
	k, err := receipt.NewKeyring("https://taasky.example", 100, seed)
	if err != nil || len(k.JWKS().Keys) != 100 || !strings.HasPrefix(k.KeyID(), "taasky-receipt-100-") {
		t.Fatalf("version 100: %v", err)
	}
	if _, err := receipt.NewKeyring("https://taasky.example", 101, seed); err == nil {
		t.Error("version 101 was taken")
	}
}
