package negotiation

import "testing"

func TestCurrencyMinorDigitsKnownCodes(t *testing.T) {
	cases := []struct {
		code   string
		digits int
	}{
		{"EUR", 2}, {"USD", 2}, {"GBP", 2}, {"CHF", 2}, {"JPY", 0},
		{"KRW", 0}, {"VND", 0}, {"ISK", 0}, {"CLP", 0}, {"PYG", 0},
		{"UGX", 0}, {"XAF", 0}, {"XOF", 0}, {"XPF", 0}, {"KMF", 0},
		{"DJF", 0}, {"GNF", 0}, {"RWF", 0}, {"VUV", 0}, {"BIF", 0},
		{"UYI", 0}, {"CLF", 4}, {"UYW", 4}, {"BHD", 3}, {"IQD", 3},
		{"JOD", 3}, {"KWD", 3}, {"LYD", 3}, {"OMR", 3}, {"TND", 3},
		{"SLE", 2}, {"VED", 2}, {"VES", 2}, {"ZWG", 2}, {"MRU", 2},
		{"STN", 2}, {"XCG", 2}, {"BOV", 2}, {"CHE", 2}, {"CHW", 2},
		{"COU", 2}, {"MXV", 2}, {"USN", 2}, {"CNY", 2}, {"INR", 2},
	}
	for _, c := range cases {
		got, ok := MinorDigits(c.code)
		if !ok {
			t.Errorf("MinorDigits(%q): ok = false, want true", c.code)
			continue
		}
		if got != c.digits {
			t.Errorf("MinorDigits(%q) = %d, want %d", c.code, got, c.digits)
		}
	}
}

func TestCurrencyMinorDigitsRejects(t *testing.T) {
	for _, code := range []string{
		"eur", "Eur", "EU", "EURO", "", " EUR",
		// No defined minor unit ("N.A.").
		"XAU", "XAG", "XPT", "XPD", "XDR", "XBA", "XSU", "XUA", "XTS", "XXX",
		// Withdrawn.
		"HRK", "SLL", "ZWL", "CUC", "VEF", "MRO", "STD", "ANG",
	} {
		if d, ok := MinorDigits(code); ok {
			t.Errorf("MinorDigits(%q) = %d, true; want not ok", code, d)
		}
	}
}

func TestCurrencyTableShape(t *testing.T) {
	if n := len(iso4217MinorDigits); n <= 150 {
		t.Fatalf("table has %d entries, want more than 150", n)
	}
	for code, d := range iso4217MinorDigits {
		if len(code) != 3 {
			t.Errorf("code %q is not 3 bytes long", code)
		}
		for i := 0; i < len(code); i++ {
			if code[i] < 'A' || code[i] > 'Z' {
				t.Errorf("code %q is not all uppercase ASCII letters", code)
				break
			}
		}
		if d > 4 {
			t.Errorf("code %q has %d minor digits, want 0..4", code, d)
		}
	}
}
