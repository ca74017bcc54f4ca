// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package ping

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// AlwaysFailsImpl implements AlwaysFailsHandler for tool always_fails.
// Give it what the methods need: a database handle, API clients.
type AlwaysFailsImpl struct{}

var _ AlwaysFailsHandler = (*AlwaysFailsImpl)(nil)

// Authorize decides whether f.Call.Principal may run always_fails with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *AlwaysFailsImpl) Authorize(ctx context.Context, f *AlwaysFailsFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("always_fails: Authorize is not implemented yet")
}
