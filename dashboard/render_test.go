package dashboard

import (
	"testing"

	"github.com/taasky/taasky/app"
)

// TestStatusOf: every app error code has its status; a signed-in person
// refused is forbidden, not asked to identify themselves.
func TestStatusOf(t *testing.T) {
	t.Parallel()
	for code, want := range map[app.ErrorCode]int{
		app.ErrInvalid:      400,
		app.ErrNotFound:     404,
		app.ErrConflict:     409,
		app.ErrUnauthorized: 403,
		app.ErrInternal:     500,
		"":                  500,
	} {
		if got := statusOf(code); got != want {
			t.Errorf("statusOf(%q) = %d, want %d", code, got, want)
		}
	}
}
