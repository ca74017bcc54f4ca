// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// SImpl implements SHandler for tool s.
// Give it what the methods need: a database handle, API clients.
type SImpl struct{}

var _ SHandler = (*SImpl)(nil)

// Authorize decides whether f.Call.Principal may run s with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *SImpl) Authorize(ctx context.Context, f *SFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("s: Authorize is not implemented yet")
}
