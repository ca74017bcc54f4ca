package testprog

import (
	"context"
	"sync/atomic"
)

// DraftImpl counts its checks: only one way through draft asks the model,
// so a client without sampling is served until it takes that way.
type DraftImpl struct {
	Checks atomic.Int32
}

var _ DraftHandler = (*DraftImpl)(nil)

func (h *DraftImpl) Authorize(ctx context.Context, f *DraftFlow) error { return nil }

func (h *DraftImpl) FindTopic(ctx context.Context, f *DraftFlow) error {
	h.Checks.Add(1)
	f.Continuation.Subject = "Topic " + f.Args.Topic
	return nil
}
