package testprog

import (
	"context"
	"sync/atomic"
)

// UnlockImpl accepts the code "1234"; Checks counts CodeMatches calls.
type UnlockImpl struct {
	Checks atomic.Int32
}

var _ UnlockHandler = (*UnlockImpl)(nil)

func (h *UnlockImpl) Authorize(ctx context.Context, f *UnlockFlow) error { return nil }

func (h *UnlockImpl) CodeMatches(ctx context.Context, f *UnlockFlow) (UnlockCodeMatchesOutcome, error) {
	h.Checks.Add(1)
	if f.Code.Digits == "1234" {
		return UnlockCodeMatchesRight, nil
	}
	return UnlockCodeMatchesWrong, nil
}
