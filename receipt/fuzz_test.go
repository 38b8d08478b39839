package receipt_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/taasky/taasky/receipt"
)

// FuzzVerify verifies arbitrary text as a receipt. Whatever comes in: no
// panic; a refusal is a verification error with its problem, in one line;
// nothing verifies but the receipt the issuer signed (its one spelling,
// around spaces); and naming the issuer changes only whether a receipt of
// another issuer is foreign, never whether a receipt is accepted.
//
//	go test ./receipt -run XXX -fuzz FuzzVerify -fuzztime 3m -parallel 1
func FuzzVerify(f *testing.F) {
	t := &testing.T{}
	k := keyring(t, "https://taasky.example", 2, "s3cret")
	other := keyring(t, "https://other.example", 1, "another")
	signed, err := k.Sign(sample())
	if err != nil {
		f.Fatal(err)
	}
	foreign, err := other.Sign(sample())
	if err != nil {
		f.Fatal(err)
	}
	parts := strings.Split(signed, ".")
	f.Add(signed)
	f.Add(" " + signed + "\n")
	f.Add(foreign)
	f.Add(parts[0] + "." + parts[1] + ".")
	f.Add(parts[0] + ".." + parts[2])
	f.Add(parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"typ":"x"}`)) + "." + parts[2])
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"taasky-receipt+jwt"}`)) + "." + parts[1] + ".")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","kid":"`+k.KeyID()+`"}`)) + "." + parts[1] + "." + parts[2])
	f.Add(signed + "." + parts[2])
	f.Add(`{"payload":"` + parts[1] + `","signatures":[]}`)
	keys := k.JWKS()
	f.Fuzz(func(t *testing.T, jws string) {
		r, err := receipt.Verify(jws, k.Issuer(), keys)
		anyIssuer, errAny := receipt.Verify(jws, "", keys)
		if err == nil {
			if strings.TrimSpace(jws) != signed {
				t.Fatalf("%q verifies, and is not the receipt signed", jws)
			}
			if r.Issuer != k.Issuer() || r.Room.ID != 42 {
				t.Fatalf("%q: verified as %+v", jws, r)
			}
		} else {
			p := receipt.ProblemOf(err)
			if p == "" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: refused with %v (problem %q)", jws, err, p)
			}
		}
		if (errAny == nil) != (err == nil) && receipt.ProblemOf(err) != receipt.ProblemForeign {
			t.Fatalf("%q: %v with the issuer named, %v without", jws, err, errAny)
		}
		if errAny == nil && anyIssuer.Issuer != k.Issuer() {
			t.Fatalf("%q: verified without the issuer as %q's", jws, anyIssuer.Issuer)
		}
		if _, err := receipt.Verify(jws, k.Issuer(), nil); err == nil {
			t.Fatalf("%q verifies without keys", jws)
		}
	})
}
