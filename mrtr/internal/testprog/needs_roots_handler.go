package testprog

import "context"

// NeedsRootsImpl does nothing: the program's capability rules are the point.
type NeedsRootsImpl struct{}

var _ NeedsRootsHandler = (*NeedsRootsImpl)(nil)

func (h *NeedsRootsImpl) Authorize(ctx context.Context, f *NeedsRootsFlow) error { return nil }

func (h *NeedsRootsImpl) Probe(ctx context.Context, f *NeedsRootsFlow) error { return nil }
