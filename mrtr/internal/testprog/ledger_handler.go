package testprog

import (
	"context"
	"sync"
)

// LedgerImpl posts entries; a test sees, from Reconcile, what the store
// holds right after the effect.
type LedgerImpl struct {
	// OnReconcile runs at the start of every Reconcile call.
	OnReconcile func(ctx context.Context, f *LedgerFlow)

	mu     sync.Mutex
	Posted int
}

var _ LedgerHandler = (*LedgerImpl)(nil)

func (h *LedgerImpl) Authorize(ctx context.Context, f *LedgerFlow) error { return nil }

func (h *LedgerImpl) PostEntry(ctx context.Context, f *LedgerFlow) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Posted++
	return nil
}

func (h *LedgerImpl) Reconcile(ctx context.Context, f *LedgerFlow) error {
	if h.OnReconcile != nil {
		h.OnReconcile(ctx, f)
	}
	return nil
}

// PostedCount returns how many entries were posted.
func (h *LedgerImpl) PostedCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.Posted
}
