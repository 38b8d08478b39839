package main

import (
	"testing"

	"github.com/taasky/taasky/app"
)

// TestHTTPStatus: every app error code has its status.
func TestHTTPStatus(t *testing.T) {
	t.Parallel()
	for code, want := range map[app.ErrorCode]int{
		app.ErrInvalid:      400,
		app.ErrNotFound:     404,
		app.ErrConflict:     409,
		app.ErrUnauthorized: 401,
		app.ErrInternal:     500,
		"":                  500,
	} {
		if got := httpStatus(code); got != want {
			t.Errorf("httpStatus(%q) = %d, want %d", code, got, want)
		}
	}
}
