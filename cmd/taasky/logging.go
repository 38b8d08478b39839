package main

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"github.com/taasky/taasky/internal/fiberhttp"
)

// newLogger logs JSON for machines (serve) or text for people (dev); a
// line logged with a request's context carries its request_id
// (fiberhttp.RequestIDFrom).
func newLogger(w io.Writer, asJSON bool) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if asJSON {
		return slog.New(fiberhttp.LogRequestID(slog.NewJSONHandler(w, opts)))
	}
	return slog.New(fiberhttp.LogRequestID(slog.NewTextHandler(w, opts)))
}

// riverLogger is log for River's client. Its producer logs its job counts
// at info every 5 s whenever they moved, and the sweep (a job a second)
// moves them always: 17,280 lines a day from every working process, more
// than all the rest. That line is debug here; River's others keep their
// level.
func riverLogger(log *slog.Logger) *slog.Logger {
	return slog.New(quietCounts{log.Handler()}).With("component", "river")
}

type quietCounts struct{ slog.Handler }

func (h quietCounts) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo && strings.HasSuffix(r.Message, ": Producer job counts") {
		r.Level = slog.LevelDebug
		if !h.Enabled(ctx, r.Level) {
			return nil
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietCounts) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietCounts{h.Handler.WithAttrs(attrs)}
}

func (h quietCounts) WithGroup(name string) slog.Handler {
	return quietCounts{h.Handler.WithGroup(name)}
}
