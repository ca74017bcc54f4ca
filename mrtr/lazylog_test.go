package mrtr

import (
	"bytes"
	"log/slog"
	"testing"
)

// TestLazyWithLogsWhatWithLogs: the round's logger writes exactly what
// logger.With would, through groups and further attributes too.
func TestLazyWithLogsWhatWithLogs(t *testing.T) {
	for _, newHandler := range []func(*bytes.Buffer) slog.Handler{
		func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
		func(b *bytes.Buffer) slog.Handler {
			return slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
	} {
		var eager, lazy bytes.Buffer
		log := func(l *slog.Logger) {
			l.Info("one", "k", 1)
			l.Debug("filtered or not, alike")
			l.With("extra", true).WithGroup("g").Warn("two", "inner", "x")
		}
		log(slog.New(newHandler(&eager)).With("tool", "t", "workflow", "w1", "round", 2))
		log(roundLogger(slog.New(newHandler(&lazy)), "t", "w1", 2))
		log(slog.New(newHandler(&eager)).With("tool", "t"))
		log(roundLogger(slog.New(newHandler(&lazy)), "t", "", 0))
		strip := func(b []byte) []byte { // the time differs
			var out [][]byte
			for _, line := range bytes.Split(b, []byte("\n")) {
				if i := bytes.Index(line, []byte("level")); i >= 0 {
					line = line[i:]
				}
				out = append(out, line)
			}
			return bytes.Join(out, []byte("\n"))
		}
		if got, want := strip(lazy.Bytes()), strip(eager.Bytes()); !bytes.Equal(got, want) {
			t.Errorf("lazy:\n%s\neager:\n%s", got, want)
		}
	}
}
