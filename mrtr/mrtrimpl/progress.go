package mrtrimpl

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/progress"
)

// ProgressOf returns the reporter of the request ctx belongs to, or nil
// (which sends nothing). Generated code passes it to the handler methods
// of states that declare progress, whose parameter is *mrtr.Progress (the
// same type: the reporter lives in mrtr/internal/progress, and mrtr names
// it once for handler authors).
func (Export) ProgressOf(ctx context.Context) *progress.Reporter {
	return progress.Of(ctx)
}
