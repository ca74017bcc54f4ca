// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package ping

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// PingImpl implements PingHandler for tool ping.
// Give it what the methods need: a database handle, API clients.
type PingImpl struct{}

var _ PingHandler = (*PingImpl)(nil)

// Authorize decides whether f.Call.Principal may run ping with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *PingImpl) Authorize(ctx context.Context, f *PingFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("ping: Authorize is not implemented yet")
}
