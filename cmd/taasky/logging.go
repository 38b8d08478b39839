package main

import (
	"io"
	"log/slog"
)

// newLogger logs JSON for machines (serve) or text for people (dev).
func newLogger(w io.Writer, asJSON bool) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if asJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
