// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package accounts

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ShowQuotaImpl implements ShowQuotaHandler for tool show_quota.
// Give it what the methods need: a database handle, API clients.
type ShowQuotaImpl struct{}

var _ ShowQuotaHandler = (*ShowQuotaImpl)(nil)

// Authorize decides whether f.Call.Principal may run show_quota with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ShowQuotaImpl) Authorize(ctx context.Context, f *ShowQuotaFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("show_quota: Authorize is not implemented yet")
}

// ReadQuota is the check of state read.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ShowQuotaImpl) ReadQuota(ctx context.Context, f *ShowQuotaFlow) error {
	// TODO: check readQuota; set f.Continuation fields later states need.
	return errors.New("show_quota: ReadQuota is not implemented yet")
}
