// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package content_kinds

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// LegendImpl implements LegendHandler for resource legend.
// Give it what the methods need: a database handle, API clients.
type LegendImpl struct{}

var _ LegendHandler = (*LegendImpl)(nil)

// Authorize decides whether f.Call.Principal may run legend with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *LegendImpl) Authorize(ctx context.Context, f *LegendFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("legend: Authorize is not implemented yet")
}
