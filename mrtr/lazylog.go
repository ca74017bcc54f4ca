package mrtr

import (
	"context"
	"log/slog"
	"sync"
)

// roundLogger is logger.With("tool", tool, "workflow", workflow, "round",
// round) (only "tool" when workflow is ""), formatting nothing until a
// record is logged: slog's built-in handlers render With attributes
// eagerly, which cost every round a few allocations for a logger handlers
// rarely use. The fields are kept typed, not boxed into a []any, for the
// same reason. The records it writes are the same.
func roundLogger(logger *slog.Logger, tool, workflow string, round int) *slog.Logger {
	return slog.New(&lazyHandler{base: logger.Handler(), tool: tool, workflow: workflow, round: round})
}

type lazyHandler struct {
	base     slog.Handler
	tool     string
	workflow string // "" before the workflow is known: no workflow and round attributes
	round    int
	once     sync.Once
	h        slog.Handler
}

func (l *lazyHandler) handler() slog.Handler {
	l.once.Do(func() {
		attrs := []slog.Attr{slog.String("tool", l.tool)}
		if l.workflow != "" {
			attrs = append(attrs, slog.String("workflow", l.workflow), slog.Int("round", l.round))
		}
		l.h = l.base.WithAttrs(attrs)
	})
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
