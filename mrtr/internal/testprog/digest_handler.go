package testprog

import (
	"context"
	"sync/atomic"
)

// DigestImpl counts what it runs: the runtime's tests show that a client
// that cannot answer the model, which every way through digest asks, is
// refused before the check, the question and the effect.
type DigestImpl struct {
	Checks, Notes atomic.Int32
}

var _ DigestHandler = (*DigestImpl)(nil)

func (h *DigestImpl) Authorize(ctx context.Context, f *DigestFlow) error { return nil }

func (h *DigestImpl) FindDocument(ctx context.Context, f *DigestFlow) error {
	h.Checks.Add(1)
	f.Continuation.Title = "Document " + f.Args.Doc
	return nil
}

func (h *DigestImpl) NoteRequest(ctx context.Context, f *DigestFlow) error {
	h.Notes.Add(1)
	return nil
}
