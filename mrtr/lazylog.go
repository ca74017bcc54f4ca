package mrtr

import (
	"context"
	"log/slog"
	"sync"
)

// lazyWith is logger.With(args...) that formats nothing until a record is
// logged: slog's built-in handlers render With attributes eagerly, which
// cost every round a few allocations for a logger handlers rarely use.
// The records it writes are the same.
func lazyWith(logger *slog.Logger, args ...any) *slog.Logger {
	return slog.New(&lazyHandler{base: logger.Handler(), args: args})
}

type lazyHandler struct {
	base slog.Handler
	args []any
	once sync.Once
	h    slog.Handler
}

func (l *lazyHandler) handler() slog.Handler {
	l.once.Do(func() { l.h = slog.New(l.base).With(l.args...).Handler() })
	return l.h
}

func (l *lazyHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return l.base.Enabled(ctx, level)
}

func (l *lazyHandler) Handle(ctx context.Context, r slog.Record) error {
	return l.handler().Handle(ctx, r)
}

func (l *lazyHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return l.handler().WithAttrs(attrs)
}

func (l *lazyHandler) WithGroup(name string) slog.Handler { return l.handler().WithGroup(name) }
