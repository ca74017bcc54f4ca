package testprog

import (
	"context"
	"sync"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// NotifyImpl sends notes; its effect has the workflow's own operation id.
// It records every attempt the engine makes, for the fault tests.
type NotifyImpl struct {
	// AfterSend runs once a note was sent (a test cuts the store there).
	AfterSend func()

	mu       sync.Mutex
	Attempts []mrtr.Attempt // one per SendNote call
}

var _ NotifyHandler = (*NotifyImpl)(nil)

func (h *NotifyImpl) Authorize(ctx context.Context, f *NotifyFlow) error { return nil }

func (h *NotifyImpl) SendNote(ctx context.Context, f *NotifyFlow) error {
	h.mu.Lock()
	h.Attempts = append(h.Attempts, *f.Call.Attempt)
	h.mu.Unlock()
	if h.AfterSend != nil {
		h.AfterSend()
	}
	return nil
}

// Sent returns the attempts made so far.
func (h *NotifyImpl) Sent() []mrtr.Attempt {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]mrtr.Attempt(nil), h.Attempts...)
}
