package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxReceiptKeyVersion bounds RECEIPT_KEY_VERSION: every version up to it
// is derived and published, so a typo should not publish thousands (the
// same bound as receipt.MaxKeyVersion, which the keyring checks).
const maxReceiptKeyVersion = 100

// LoadReceipts reads RECEIPT_KEY_VERSION (default 1): the version of the
// key that signs new receipts. Every version from 1 to it is derived from
// SECRET_KEY (ReceiptSeed) and published at /.well-known/jwks.json (the
// next one too, ahead), so a receipt signed before a rotation still
// verifies; rotating is raising the number. A bad value is one line, in
// the words of Load's. Lowering it below a version that signed is refused
// when the process starts (app.KeepReceiptKeyVersion).
func (c *Config) LoadReceipts(getenv func(string) string) error {
	c.ReceiptKeyVersion = 1
	v := strings.TrimSpace(getenv("RECEIPT_KEY_VERSION"))
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxReceiptKeyVersion {
		return fmt.Errorf("RECEIPT_KEY_VERSION: must be a whole number from 1 to %d (raise it by one to rotate the receipt key)", maxReceiptKeyVersion)
	}
	c.ReceiptKeyVersion = n
	return nil
}

// ReceiptSeed is the Ed25519 seed of receipt key version v: HKDF-SHA256 of
// SECRET_KEY with the label "taasky/receipt/v{v}".
func (c Config) ReceiptSeed(v int) []byte {
	if v < 1 {
		panic(errors.New("config: receipt key versions start at 1"))
	}
	return c.Key("receipt/v" + strconv.Itoa(v))
}

// PreviousReceiptSeed is ReceiptSeed under SECRET_KEY_PREVIOUS (nil when
// it is unset): the keys that signed before a rotation of SECRET_KEY,
// still published.
func (c Config) PreviousReceiptSeed(v int) []byte {
	if v < 1 {
		panic(errors.New("config: receipt key versions start at 1"))
	}
	return c.PreviousKey("receipt/v" + strconv.Itoa(v))
}
