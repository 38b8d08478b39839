package receipt

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/go-jose/go-jose/v4"
	jsonv2 "github.com/go-json-experiment/json"
)

// Problem is why a receipt does not verify.
type Problem string

const (
	// ProblemMalformed: not a JWS in compact form, not EdDSA, or a payload
	// that is not a receipt.
	ProblemMalformed Problem = "malformed"
	// ProblemForeign: issued by another service than the one expected: a
	// payload whose signature checks out names another issuer, or one
	// signed with a key not among those given does (then it is only what
	// the receipt claims: the keys to check it with are another's).
	ProblemForeign Problem = "foreign"
	// ProblemUnknownKey: signed with a kid the issuer does not publish.
	ProblemUnknownKey Problem = "unknown_key"
	// ProblemTampered: the signature does not match the bytes: something
	// was changed after signing (or it was signed by someone else with the
	// issuer's kid).
	ProblemTampered Problem = "tampered"
)

// Error says, in one line, why a receipt does not verify.
type Error struct {
	Problem Problem
	// Detail is the check that failed, in English (the command line's
	// words).
	Detail string
	// Check names that check for a reader of another language
	// (size, form, signatures, header_typ, base64_header,
	// base64_payload, base64_signature, json, payload_typ, facts,
	// claims_issuer, kid, signature, issuer, payload_kid), and Values
	// are the values Detail quotes, in its order: the page says it in
	// the reader's words, the values as they were.
	Check  string
	Values []any
}

// fail is the Error of check, its Detail format's English filled with
// values.
func fail(p Problem, check, format string, values ...any) *Error {
	return &Error{Problem: p, Detail: fmt.Sprintf(format, values...), Check: check, Values: values}
}

func (e *Error) Error() string { return string(e.Problem) + ": " + e.Detail }

// ProblemOf is err's problem ("" when err is not a verification error).
func ProblemOf(err error) Problem {
	var e *Error
	if errors.As(err, &e) {
		return e.Problem
	}
	return ""
}

// maxSize bounds what is read as a receipt: a real one is a few KiB.
const maxSize = 256 << 10

// Verify checks jws against issuer's published keys and returns its facts.
// issuer "" accepts any issuer (the caller shows it); otherwise a receipt
// of another issuer is foreign. The checks run in this order: form (each
// segment's base64url spelling too, canonical: a receipt has one valid
// spelling), kid, signature, payload, issuer. Nothing of the payload is
// judged before its signature checks out: a receipt whose payload was
// changed (its issuer, its typ, any fact) is tampered, whatever the
// change. Only when the kid is not among keys, so that the signature
// cannot be checked, is the payload read unverified, to tell a receipt
// that names another issuer (foreign: the caller has the wrong keys) from
// one of this issuer's name with a key it does not publish (unknown_key).
func Verify(jws string, issuer string, keys *jose.JSONWebKeySet) (*Receipt, error) {
	jws = strings.TrimSpace(jws)
	if jws == "" || len(jws) > maxSize {
		return nil, fail(ProblemMalformed, "size", "a receipt is a JWS of 1 to %d bytes", maxSize)
	}
	if err := canonical(jws); err != nil {
		return nil, err
	}
	obj, err := jose.ParseSignedCompact(jws, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		return nil, fail(ProblemMalformed, "form", "not a JWS in compact form signed with EdDSA")
	}
	if len(obj.Signatures) != 1 {
		return nil, fail(ProblemMalformed, "signatures", "a receipt has exactly one signature")
	}
	header := obj.Signatures[0].Protected
	if typ, _ := header.ExtraHeaders[jose.HeaderType].(string); typ != HeaderType {
		return nil, fail(ProblemMalformed, "header_typ", "header typ %q, want %q", typ, HeaderType)
	}
	var found []jose.JSONWebKey
	if keys != nil && header.KeyID != "" {
		found = keys.Key(header.KeyID)
	}
	if len(found) == 0 {
		// The signature cannot be checked: what the payload claims says
		// only whose keys to ask for.
		claimed, err := decode(obj.UnsafePayloadWithoutVerification())
		if err != nil {
			return nil, err
		}
		if issuer != "" && claimed.Issuer != issuer {
			return nil, fail(ProblemForeign, "claims_issuer", "claims issuer %q, not %q; its kid %q is not among the keys given", claimed.Issuer, issuer, header.KeyID)
		}
		return nil, fail(ProblemUnknownKey, "kid", "kid %q is not among the issuer's published keys", header.KeyID)
	}
	payload, err := obj.Verify(found[0])
	if err != nil {
		return nil, fail(ProblemTampered, "signature", "the signature does not match the receipt's bytes")
	}
	r, err := decode(payload)
	if err != nil {
		return nil, err
	}
	if issuer != "" && r.Issuer != issuer {
		return nil, fail(ProblemForeign, "issuer", "issued by %q, not by %q", r.Issuer, issuer)
	}
	if r.KeyID != header.KeyID {
		return nil, fail(ProblemMalformed, "payload_kid", "payload kid %q differs from the header's %q", r.KeyID, header.KeyID)
	}
	return r, nil
}

// canonical refuses a JWS whose header, payload or signature is not
// base64url as RFC 7515 writes it: unpadded, of its alphabet only, the
// unused bits of its last character zero. Decoders take other spellings of
// the same bytes (a last character changed in its unused bits, a line
// break), which would give one receipt several valid spellings. A JWS not
// of three segments is left to the parser to refuse.
func canonical(jws string) error {
	segs := strings.Split(jws, ".")
	if len(segs) != 3 {
		return nil
	}
	for i, seg := range segs {
		ok := true
		for _, c := range []byte(seg) {
			if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				ok = false
				break
			}
		}
		if ok {
			_, err := base64.RawURLEncoding.Strict().DecodeString(seg)
			ok = err == nil
		}
		if !ok {
			part := []string{"header", "payload", "signature"}[i]
			return &Error{Problem: ProblemMalformed, Check: "base64_" + part, Detail: fmt.Sprintf("the %s is not canonical base64url (unpadded, letters, digits, - and _ only, the last character's unused bits zero)",
				part)}
		}
	}
	return nil
}

// decode reads a payload strictly: one JSON object and nothing after it,
// its names spelled as a receipt spells them (no other case, none twice,
// none unknown), every fact present. encoding/json would take `"ISS"`
// for iss, the last of two `"terms"`, and ignore bytes after the object.
func decode(payload []byte) (*Receipt, error) {
	r := &Receipt{}
	if err := jsonv2.Unmarshal(payload, r, jsonv2.RejectUnknownMembers(true)); err != nil {
		return nil, &Error{Problem: ProblemMalformed, Check: "json", Detail: "the payload is not a receipt: " + err.Error()}
	}
	switch {
	case r.Type != Type:
		return nil, fail(ProblemMalformed, "payload_typ", "payload typ %q, want %q", r.Type, Type)
	case r.Issuer == "" || r.KeyID == "" || r.IssuedAt.IsZero() || r.Room.ID == 0 || r.SubjectHash == "" ||
		len(r.Terms) == 0 || r.Log.Head == "" || r.Parties.A.Confirmation.At.IsZero() || r.Parties.B.Confirmation.At.IsZero():
		return nil, fail(ProblemMalformed, "facts", "the payload lacks some of a receipt's facts")
	}
	return r, nil
}
