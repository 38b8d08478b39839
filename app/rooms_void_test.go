package app

import (
	"testing"

	"github.com/taasky/taasky/internal/locale"
)

// TestVoidReasonsAreCatalogTexts: every reason a confirmation comes out
// void with is stored as its catalog key's English text, so the dashboard
// can say it in the reader's language.
func TestVoidReasonsAreCatalogTexts(t *testing.T) {
	for key, english := range voidReasons {
		if got := locale.English().T(locale.Key(key)); got != english {
			t.Errorf("%s is %q in the catalog, the rooms store %q", key, got, english)
		}
		if de := locale.NewPrinter("de").Reason(english); de == english {
			t.Errorf("%q has no German", english)
		}
	}
}
