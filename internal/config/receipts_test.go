package config

import (
	"bytes"
	"strings"
	"testing"
)

// TestLoadReceipts: RECEIPT_KEY_VERSION defaults to 1, takes 1 to 100, and
// anything else is one line naming it; each version has its own seed.
func TestLoadReceipts(t *testing.T) {
	for v, want := range map[string]int{"": 1, "1": 1, " 3 ": 3, "100": 100} {
		c := Config{}
		if err := c.LoadReceipts(func(string) string { return v }); err != nil || c.ReceiptKeyVersion != want {
			t.Errorf("%q: %d, %v; want %d", v, c.ReceiptKeyVersion, err, want)
		}
	}
	for _, v := range []string{"0", "-1", "101", "two", "1.5"} {
		c := Config{}
		err := c.LoadReceipts(func(string) string { return v })
		if err == nil || !strings.HasPrefix(err.Error(), "RECEIPT_KEY_VERSION: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v", v, err)
		}
	}
	c := Config{secretKey: strings.Repeat("s", 40)}
	if a, b := c.ReceiptSeed(1), c.ReceiptSeed(2); len(a) != 32 || bytes.Equal(a, b) || bytes.Equal(a, c.Key("limits")) {
		t.Error("receipt seeds are not one per version, apart from the other keys")
	}
}
