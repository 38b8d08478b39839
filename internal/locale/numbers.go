package locale

import (
	"strings"

	"github.com/taasky/taasky/negotiation"
)

// numbers is how a language writes an amount (CLDR 46, latn digits): its
// decimal separator, its group separator, and from how many digits of the
// whole part it groups them (Spanish leaves 4 digits ungrouped: 1500,00).
type numbers struct {
	decimal, group string
	minGrouped     int
}

var (
	englishNumbers  = numbers{decimal: ".", group: ",", minGrouped: 4}
	germanNumbers   = numbers{decimal: ",", group: ".", minGrouped: 4}
	frenchNumbers   = numbers{decimal: ",", group: "\u202f", minGrouped: 4} // a narrow no-break space
	spanishNumbers  = numbers{decimal: ",", group: ".", minGrouped: 5}
	japaneseNumbers = numbers{decimal: ".", group: ",", minGrouped: 4}
)

// Money writes an amount with its currency code for a reader: the
// currency's minor digits exactly (amount is a decimal string as terms
// hold it, "1500.000"; nothing is rounded, the digits are only regrouped),
// in the language's separators: "1,500.000 BHD" in English, "1.500,000 BHD"
// in German. An amount written with a point alone would read as a
// thousand times itself to a German, French or Spanish reader ("1.500
// BHD"). Anything that is not such a decimal string is written as given.
func (p *Printer) Money(amount, currency string) string {
	return p.number(amount) + " " + currency
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
