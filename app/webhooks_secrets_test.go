package app

import (
	"slices"
	"testing"
	"time"
)

// TestHookSecretSignsUntilItsMoment: a replaced secret signs up to the
// moment its day ends, not at it: an instant before, both secrets sign;
// at the moment the settings page names, the current one alone.
func TestHookSecretSignsUntilItsMoment(t *testing.T) {
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	s := hookSecrets{Current: "old"}.rotated("new", at)
	until := at.Add(hookPreviousFor)
	if got := s.signing(until.Add(-time.Nanosecond)); !slices.Equal(got, []string{"new", "old"}) {
		t.Errorf("an instant before the replaced secret's end: signing %v, want new and old", got)
	}
	if got := s.signing(until); !slices.Equal(got, []string{"new"}) {
		t.Errorf("at the replaced secret's end: signing %v, want the new one alone", got)
	}
}
