package locale

import (
	"strings"

	"github.com/taasky/taasky/negotiation"
)

// numbers is how a language writes an amount (CLDR 46, latn digits): its
// decimal separator, its group separator, from how many digits of the
// whole part it groups them (Spanish leaves 4 digits ungrouped: 1500,00),
// and whether its currency pattern puts the currency first ("¤#,##0.00"
// in English and Japanese, "#,##0.00 ¤" in German, French and Spanish).
type numbers struct {
	decimal, group string
	minGrouped     int
	currencyFirst  bool
}

var (
	englishNumbers  = numbers{decimal: ".", group: ",", minGrouped: 4, currencyFirst: true}
	germanNumbers   = numbers{decimal: ",", group: ".", minGrouped: 4}
	frenchNumbers   = numbers{decimal: ",", group: "\u202f", minGrouped: 4} // a narrow no-break space
	spanishNumbers  = numbers{decimal: ",", group: ".", minGrouped: 5}
	japaneseNumbers = numbers{decimal: ".", group: ",", minGrouped: 4, currencyFirst: true}
)

// Money writes an amount with its currency code for a reader: the
// currency's minor digits exactly (amount is a decimal string as terms
// hold it, "1500.000"; nothing is rounded, the digits are only regrouped),
// in the language's separators and its currency pattern, the code held to
// the number by a no-break space as CLDR writes it (a line never ends
// between them): "BHD 1,500.000" in English, "1.500,000 BHD" in German.
// An amount written with a point alone would read as a thousand times
// itself to a German, French or Spanish reader ("1.500 BHD"). Anything
// that is not such a decimal string is written as given.
func (p *Printer) Money(amount, currency string) string {
	if p.numbers.currencyFirst {
		return currency + "\u00a0" + p.number(amount)
	}
	return p.number(amount) + "\u00a0" + currency
}

// number regroups a non-negative decimal string's digits in the
// language's separators.
func (p *Printer) number(s string) string {
	whole, frac, hasPoint := strings.Cut(s, ".")
	if !digitsOnly(whole) || (hasPoint && !digitsOnly(frac)) {
		return s
	}
	n := p.numbers
	var b strings.Builder
	if len(whole) < n.minGrouped {
		b.WriteString(whole)
	} else {
		for i := range len(whole) {
			if i > 0 && (len(whole)-i)%3 == 0 {
				b.WriteString(n.group)
			}
			b.WriteByte(whole[i])
		}
	}
	if hasPoint {
		b.WriteString(n.decimal)
		b.WriteString(frac)
	}
	return b.String()
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// amount writes a money value (terms' or a limit's) as Money does, with
// exactly its currency's minor digits.
func (p *Printer) amount(v *negotiation.Value) string {
	digits, _ := negotiation.MinorDigits(v.Currency)
	return p.Money(v.Amount.StringFixed(int32(digits)), v.Currency)
}

// AmountInput writes an amount (a decimal string as terms hold it) as the
// reader types one into a form: with the language's decimal mark, no
// group separators ("1500,000" in German). A phone's decimal keypad types
// that mark, and a German reads "1.500" as fifteen hundred.
func (p *Printer) AmountInput(amount string) string {
	if p.numbers.decimal == "." {
		return amount
	}
	return strings.Replace(amount, ".", p.numbers.decimal, 1)
}

// ReadAmount reads an amount a person typed in the reader's language
// (AmountInput's shape) into a decimal string as terms take it; false when
// a language of decimal commas is given anything else, a point above all
// ("1.500": fifteen hundred, or one and a half?); a minus is kept, for the
// terms' rule to refuse. In a language of decimal points the text is
// returned as typed, for the terms' own rules.
func (p *Printer) ReadAmount(typed string) (string, bool) {
	if p.numbers.decimal == "." {
		return typed, true
	}
	// One minus is kept: the terms' own rule says what is wrong with it.
	// Only one: "--5" is no amount, and reading each minus again (as this
	// once did) took time and memory in the square of their number.
	unsigned, negative := strings.CutPrefix(typed, "-")
	whole, frac, hasMark := strings.Cut(unsigned, p.numbers.decimal)
	if !digitsOnly(whole) || (len(whole) > 1 && whole[0] == '0') || (hasMark && !digitsOnly(frac)) {
		return "", false
	}
	amount := whole
	if hasMark {
		amount += "." + frac
	}
	if negative {
		amount = "-" + amount
	}
	return amount, true
}
