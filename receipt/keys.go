package receipt

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	_ "crypto/sha256" // the thumbprint's hash
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// MaxKeyVersion bounds the key versions: every version up to the current
// one is derived and published, so a typo should not publish thousands.
const MaxKeyVersion = 100

// Keyring holds the issuer's receipt keys. Versions 1 to the current one
// are derived from the server's secret (seed(n) is 32 bytes, e.g. HKDF of
// SECRET_KEY with the label "receipt/v{n}"); the current one signs. All of
// them are published, and the next one ahead: during a rotation (raising
// the version by one, process by process) the processes not yet raised,
// and a verifier's copy of the set fetched before it, already have the key
// the raised ones sign with. A key is never retired: a version that signed
// stays published (a process refuses to start on a lower version than
// one that signed: app.KeepReceiptKeyVersion).
// A key's kid names its version and a part of its RFC 7638 thumbprint, so
// two installations never publish the same kid.
type Keyring struct {
	issuer  string
	keys    []jose.JSONWebKey // private, oldest first; keys[signing] signs
	signing int
	// kept are public keys published besides keys (Keep): those of a
	// SECRET_KEY rotated away, which signed receipts that must still
	// verify.
	kept []jose.JSONWebKey
}

// NewKeyring derives the keys of versions 1..current+1 (at most
// MaxKeyVersion) for issuer (the service's BASE_URL); current signs.
func NewKeyring(issuer string, current int, seed func(version int) []byte) (*Keyring, error) {
	if current < 1 || current > MaxKeyVersion {
		return nil, fmt.Errorf("receipt keys: version %d: versions are 1 to %d", current, MaxKeyVersion)
	}
	k := &Keyring{issuer: issuer, signing: current - 1}
	for v := 1; v <= min(current+1, MaxKeyVersion); v++ {
		s := seed(v)
		if len(s) != ed25519.SeedSize {
			return nil, fmt.Errorf("receipt keys: version %d: seed of %d bytes, want %d", v, len(s), ed25519.SeedSize)
		}
		priv := ed25519.NewKeyFromSeed(s)
		jwk := jose.JSONWebKey{Key: priv, Algorithm: string(jose.EdDSA), Use: "sig"}
		pub := jwk.Public()
		thumb, err := pub.Thumbprint(crypto.SHA256)
		if err != nil {
			return nil, fmt.Errorf("receipt keys: %w", err)
		}
		jwk.KeyID = fmt.Sprintf("taasky-receipt-%d-%s", v, base64.RawURLEncoding.EncodeToString(thumb)[:12])
		k.keys = append(k.keys, jwk)
	}
	return k, nil
}

// Public are the public keys derived (not those kept), as JWKS has them.
func (k *Keyring) Public() []jose.JSONWebKey {
	out := make([]jose.JSONWebKey, len(k.keys))
	for i, key := range k.keys {
		out[i] = key.Public()
	}
	return out
}

// Keep publishes public keys besides the derived ones (a kid the keyring
// has already is skipped): the keys of a SECRET_KEY rotated away, kept in
// the database, so that the receipts they signed still verify. Only
// public Ed25519 keys are taken. Call it before the keyring is shared.
func (k *Keyring) Keep(keys []jose.JSONWebKey) error {
	have := map[string]bool{}
	for _, key := range k.keys {
		have[key.KeyID] = true
	}
	for _, key := range k.kept {
		have[key.KeyID] = true
	}
	for _, key := range keys {
		if _, ok := key.Key.(ed25519.PublicKey); !ok || !key.IsPublic() || key.KeyID == "" {
			return fmt.Errorf("receipt keys: kept key %q is not a public Ed25519 key", key.KeyID)
		}
		if !have[key.KeyID] {
			have[key.KeyID] = true
			k.kept = append(k.kept, key)
		}
	}
	return nil
}

// Kept says whether kid is one of the kept keys (Keep), not one the
// keyring derives: a key of a SECRET_KEY rotated away, which whoever knew
// that key can still sign with.
func (k *Keyring) Kept(kid string) bool {
	for _, key := range k.kept {
		if key.KeyID == kid {
			return true
		}
	}
	return false
}

// Issuer is whom the keyring signs for.
func (k *Keyring) Issuer() string { return k.issuer }

// KeyID is the kid of the key that signs now.
func (k *Keyring) KeyID() string { return k.keys[k.signing].KeyID }

// JWKS is the public key set, as published at /.well-known/jwks.json.
func (k *Keyring) JWKS() *jose.JSONWebKeySet {
	set := &jose.JSONWebKeySet{}
	for _, key := range k.keys {
		set.Keys = append(set.Keys, key.Public())
	}
	set.Keys = append(set.Keys, k.kept...)
	return set
}

// JWKSJSON is JWKS, encoded.
func (k *Keyring) JWKSJSON() []byte {
	b, err := json.Marshal(k.JWKS())
	if err != nil {
		panic("receipt: encode the JWK Set: " + err.Error()) // Ed25519 public keys always encode
	}
	return b
}

// Sign fills r's type, issuer and kid and signs it with the current key
// (never the one published ahead):
// the receipt in JWS compact serialization.
func (k *Keyring) Sign(r *Receipt) (string, error) {
	key := k.keys[k.signing]
	r.Type, r.Issuer, r.KeyID = Type, k.issuer, key.KeyID
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // a title's & and < stay as written
	if err := enc.Encode(r); err != nil {
		return "", fmt.Errorf("receipt: %w", err)
	}
	payload := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: key},
		(&jose.SignerOptions{}).WithType(HeaderType))
	if err != nil {
		return "", fmt.Errorf("receipt: %w", err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("receipt: %w", err)
	}
	return obj.CompactSerialize()
}

// Verify checks a receipt against this keyring (its issuer and keys).
func (k *Keyring) Verify(jws string) (*Receipt, error) { return Verify(jws, k.issuer, k.JWKS()) }
