// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package ping

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// NothingToDoImpl implements NothingToDoHandler for tool nothing_to_do.
// Give it what the methods need: a database handle, API clients.
type NothingToDoImpl struct{}

var _ NothingToDoHandler = (*NothingToDoImpl)(nil)

// Authorize decides whether f.Call.Principal may run nothing_to_do with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *NothingToDoImpl) Authorize(ctx context.Context, f *NothingToDoFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("nothing_to_do: Authorize is not implemented yet")
}
