// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package branches

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// SummarizeDayImpl implements SummarizeDayHandler for tool summarize_day.
// Give it what the methods need: a database handle, API clients.
type SummarizeDayImpl struct{}

var _ SummarizeDayHandler = (*SummarizeDayImpl)(nil)

// Authorize decides whether f.Call.Principal may run summarize_day with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *SummarizeDayImpl) Authorize(ctx context.Context, f *SummarizeDayFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("summarize_day: Authorize is not implemented yet")
}
