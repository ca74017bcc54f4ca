// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package apigen

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// GetStatusImpl implements GetStatusHandler for tool get_status.
// Give it what the methods need: a database handle, API clients.
type GetStatusImpl struct{}

var _ GetStatusHandler = (*GetStatusImpl)(nil)

// Authorize decides whether f.Call.Principal may run get_status with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *GetStatusImpl) Authorize(ctx context.Context, f *GetStatusFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("get_status: Authorize is not implemented yet")
}

// ReadStatus is the check of state read.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *GetStatusImpl) ReadStatus(ctx context.Context, f *GetStatusFlow) error {
	// TODO: check readStatus; set f.Continuation fields later states need.
	return errors.New("get_status: ReadStatus is not implemented yet")
}
