package negotiation

import (
	"strings"
	"testing"
	"time"
)

// TestCanonicalMomentsOutsideFourDigitYears documents a bug: a moment whose
// offset moves it past year 9999 (or before year 0) in UTC is accepted, but
// its canonical form writes a five-digit (or negative) year that ParseTerms
// refuses. The canonical form is then no fixed point, and a room with those
// terms on the table can be neither replayed nor restored.
func TestCanonicalMomentsOutsideFourDigitYears(t *testing.T) {
	s := mustSchema(t, []byte(`{"t":{"type":"timerange","label":"T"}}`))
	for _, in := range []string{
		`{"t":{"start":"9999-12-31T23:00:00-02:00","end":"9999-12-31T23:30:00-02:00"}}`,
		`{"t":{"start":"0000-01-01T00:10:00+01:00","end":"0000-01-01T00:30:00+01:00"}}`,
	} {
		terms, err := s.ParseTerms([]byte(in))
		if err != nil {
			continue // refused up front: fine
		}
		if _, err := s.ParseTerms(terms.Canonical()); err != nil {
			t.Fatalf("%s is accepted, its canonical form %s is refused: %v", in, terms.Canonical(), err)
		}
	}
}

// TestReadMoment: a door's deadline is read as a moment in terms is: in
// UTC when valid; else refused as invalid input, named by the field.
func TestReadMoment(t *testing.T) {
	got, err := ReadMoment("deadline", "2026-12-03T10:00:00+02:00")
	if err != nil || got.Location() != time.UTC || got.Format(time.RFC3339) != "2026-12-03T08:00:00Z" {
		t.Fatalf("valid moment: %v, %v", got, err)
	}
	for _, s := range []string{"2026-12-03", "2026-02-29T10:00:00Z", "2026-12-03T24:00:00Z"} {
		got, err := ReadMoment("deadline", s)
		if err == nil || err.Code != CodeInvalidInput || !strings.HasPrefix(err.Message, "deadline: ") || !got.IsZero() {
			t.Errorf("%s: %v, %+v", s, got, err)
		}
	}
}
