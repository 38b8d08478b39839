package locale

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/taasky/taasky/negotiation"
)

// TestMoneyInEachLanguage: an amount is written with exactly the digits
// it was agreed with, in the reader's separators, so that no reader takes
// it for another amount: 1.500 BHD (one and a half dinars) written with a
// point alone reads as fifteen hundred in German, French and Spanish.
func TestMoneyInEachLanguage(t *testing.T) {
	cases := []struct{ amount, currency string }{
		{"1.5", "BHD"}, {"1500", "JPY"}, {"1234567.5", "EUR"}, {"0.001", "KWD"}, {"999999999999999999.99", "USD"}, {"12.3456", "CLF"},
	}
	want := map[string][]string{
		"en": {"BHD\u00a01.500", "JPY\u00a01,500", "EUR\u00a01,234,567.50", "KWD\u00a00.001", "USD\u00a0999,999,999,999,999,999.99", "CLF\u00a012.3456"},
		"de": {"1,500\u00a0BHD", "1.500\u00a0JPY", "1.234.567,50\u00a0EUR", "0,001\u00a0KWD", "999.999.999.999.999.999,99\u00a0USD", "12,3456\u00a0CLF"},
		"fr": {"1,500\u00a0BHD", "1\u202f500\u00a0JPY", "1\u202f234\u202f567,50\u00a0EUR", "0,001\u00a0KWD", "999\u202f999\u202f999\u202f999\u202f999\u202f999,99\u00a0USD", "12,3456\u00a0CLF"},
		"es": {"1,500\u00a0BHD", "1500\u00a0JPY", "1.234.567,50\u00a0EUR", "0,001\u00a0KWD", "999.999.999.999.999.999,99\u00a0USD", "12,3456\u00a0CLF"},
		"ja": {"BHD\u00a01.500", "JPY\u00a01,500", "EUR\u00a01,234,567.50", "KWD\u00a00.001", "USD\u00a0999,999,999,999,999,999.99", "CLF\u00a012.3456"},
	}
	for lang, lines := range want {
		p := NewPrinter(lang)
		for i, c := range cases {
			v := negotiation.Value{Amount: decimal.RequireFromString(c.amount), Currency: c.currency}
			f := negotiation.CardField{Type: negotiation.TypeMoney, Values: []negotiation.Value{v}, Text: "as the card has it"}
			if got := p.Value(f, nil); got != lines[i] {
				t.Errorf("%s %s %s: got %q, want %q", lang, c.amount, c.currency, got, lines[i])
			}
		}
	}
	if got := NewPrinter("es").Money("12500.00", "EUR"); got != "12.500,00\u00a0EUR" {
		t.Errorf("es groups from five digits: got %q", got)
	}
	if got := NewPrinter("de").Money("not a number", "EUR"); got != "not a number\u00a0EUR" {
		t.Errorf("an amount that is no decimal string is written as given: got %q", got)
	}
}
