package mrtrtest

import (
	"bytes"
	"sync"
)

// LogBuffer collects log output (slog.NewTextHandler(&buf, nil)); the
// engine's goroutines and the test may share it.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *LogBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *LogBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
