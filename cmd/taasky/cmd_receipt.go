package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/receipt"
)

// jwksPath is where a Taasky publishes its receipt keys, under BASE_URL.
const jwksPath = "/.well-known/jwks.json"

// runReceiptVerify is `taasky receipt verify FILE [--jwks URL|FILE]
// [--issuer URL]`: it checks a receipt offline against a JWK Set (a file,
// or fetched once from a URL) and prints one line: valid with the facts,
// or which problem (malformed, foreign, unknown_key, tampered), exiting
// non-zero for those. The issuer expected is --issuer, else the service
// whose URL the keys came from, else BASE_URL; with a file and neither,
// any issuer is accepted and named.
func runReceiptVerify(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("receipt verify", "Verifies a receipt (the .jws file of an agreed room) offline against the issuer's published keys. "+
		"Usage: taasky receipt verify FILE [--jwks URL|FILE] [--issuer URL]. Without --jwks: $BASE_URL"+jwksPath+".", stdout)
	jwksFrom := cmd.String("jwks", "", "the issuer's JWK Set: a URL (fetched once) or a file")
	issuer := cmd.String("issuer", "", "the issuer expected (a Taasky's BASE_URL)")
	file, err := cmd.parseFile(args)
	if err != nil {
		return err
	}
	if file == "" {
		return cmd.fail("which receipt? give its file: taasky receipt verify FILE")
	}
	// The receipt first: a file that is not there is that, not a
	// malformed receipt nor a lack of keys.
	jws, err := readLimited(file)
	if err != nil {
		return fmt.Errorf("cannot read the receipt %s: %w", file, unwrapPath(err))
	}
	// The issuer as Taasky names itself (BASE_URL's rule: scheme and host
	// lower-cased, no trailing slash), else a receipt of it is "foreign".
	if *issuer != "" {
		if *issuer, err = config.BaseURL(*issuer); err != nil {
			return cmd.fail("--issuer: %s", err)
		}
	}
	name := "--jwks" // where the keys' source came from, for its errors
	if *jwksFrom == "" {
		name = "BASE_URL's keys"
		base := strings.TrimSpace(getenv("BASE_URL"))
		if base == "" {
			return cmd.fail("no keys to verify with: give --jwks URL|FILE (or set BASE_URL)")
		}
		if base, err = config.BaseURL(base); err != nil {
			return cmd.fail("BASE_URL: %s (or give --jwks URL|FILE)", err)
		}
		*jwksFrom = base + jwksPath
	}
	keys, from, err := loadJWKS(ctx, *jwksFrom, name)
	if err != nil {
		return err
	}
	if *issuer == "" && from != "" {
		// The service whose URL the keys came from, named as it names itself.
		if *issuer, err = config.BaseURL(from); err != nil {
			return cmd.fail("%s: the issuer its URL names: %s (or give --issuer URL)", name, err)
		}
	}
	r, err := receipt.Verify(string(jws), *issuer, keys)
	if err != nil {
		return err // one line: "<problem>: <detail>"
	}
	title := ""
	if r.Room.Title != "" {
		title = fmt.Sprintf(" %q", r.Room.Title)
	}
	fmt.Fprintf(stdout, "valid: room %d%s agreed %s on terms %s; signed by %s with key %s, issued %s\n",
		r.Room.ID, title, r.Room.AgreedAt.Format(time.RFC3339), r.SubjectHash, r.Issuer, r.KeyID, r.IssuedAt.Format(time.RFC3339))
	return nil
}

// maxKeysFile bounds a JWK Set read or fetched, and a receipt read.
const maxKeysFile = 1 << 20

func readLimited(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxKeysFile))
}

// unwrapPath drops an *fs.PathError's operation and path ("open FILE: "),
// for a message that names the file itself.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// loadJWKS reads a JWK Set from a file or fetches it from a URL; from is
// the issuer the URL names ("" for a file). Its errors begin with name:
// --jwks, or BASE_URL's keys when the URL came from BASE_URL.
func loadJWKS(ctx context.Context, src, name string) (set *jose.JSONWebKeySet, from string, err error) {
	var raw []byte
	if l := strings.ToLower(src); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
		if err != nil {
			return nil, "", fmt.Errorf("%s %s: %w", name, src, err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, "", fmt.Errorf("%s %s: %w", name, src, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, "", fmt.Errorf("%s %s: answered %s", name, src, resp.Status)
		}
		if raw, err = io.ReadAll(io.LimitReader(resp.Body, maxKeysFile)); err != nil {
			return nil, "", fmt.Errorf("%s %s: %w", name, src, err)
		}
		from = strings.TrimSuffix(src, jwksPath)
	} else if raw, err = readLimited(src); err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	set = &jose.JSONWebKeySet{}
	if err := json.Unmarshal(raw, set); err != nil || len(set.Keys) == 0 {
		return nil, "", fmt.Errorf("%s %s: not a JWK Set with keys", name, src)
	}
	return set, from, nil
}
