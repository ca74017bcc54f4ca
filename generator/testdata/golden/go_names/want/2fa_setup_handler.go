// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// X2faSetupImpl implements X2faSetupHandler for tool 2fa-setup.
// Give it what the methods need: a database handle, API clients.
type X2faSetupImpl struct{}

var _ X2faSetupHandler = (*X2faSetupImpl)(nil)

// Authorize decides whether f.Call.Principal may run 2fa-setup with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *X2faSetupImpl) Authorize(ctx context.Context, f *X2faSetupFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("2fa-setup: Authorize is not implemented yet")
}
