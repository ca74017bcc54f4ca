// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// EImpl implements EHandler for tool e.
// Give it what the methods need: a database handle, API clients.
type EImpl struct{}

var _ EHandler = (*EImpl)(nil)

// Authorize decides whether f.Call.Principal may run e with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *EImpl) Authorize(ctx context.Context, f *EFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("e: Authorize is not implemented yet")
}
