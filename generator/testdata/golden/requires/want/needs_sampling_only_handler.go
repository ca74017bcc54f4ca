// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package assist

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// NeedsSamplingOnlyImpl implements NeedsSamplingOnlyHandler for tool needs_sampling_only.
// Give it what the methods need: a database handle, API clients.
type NeedsSamplingOnlyImpl struct{}

var _ NeedsSamplingOnlyHandler = (*NeedsSamplingOnlyImpl)(nil)

// Authorize decides whether f.Call.Principal may run needs_sampling_only with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *NeedsSamplingOnlyImpl) Authorize(ctx context.Context, f *NeedsSamplingOnlyFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("needs_sampling_only: Authorize is not implemented yet")
}
