// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package releases

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ApproveReleaseImpl implements ApproveReleaseHandler for tool approve_release.
// Give it what the methods need: a database handle, API clients.
type ApproveReleaseImpl struct{}

var _ ApproveReleaseHandler = (*ApproveReleaseImpl)(nil)

// Authorize decides whether f.Call.Principal may run approve_release with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ApproveReleaseImpl) Authorize(ctx context.Context, f *ApproveReleaseFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("approve_release: Authorize is not implemented yet")
}

// ReleaseExists is the check of state lookup.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ApproveReleaseImpl) ReleaseExists(ctx context.Context, f *ApproveReleaseFlow) error {
	// TODO: check releaseExists; set f.Continuation fields later states need.
	return errors.New("approve_release: ReleaseExists is not implemented yet")
}

// TicketApproved is the check of state verify. The ticket exists and approves this release. Return
// mrtr.Reject to refuse the request with a message; any other error is a dependency failure. In
// state verify, return mrtr.AskAgain with a message for the user to ask askTicket again (3 answers
// in all; then noTicket).
func (h *ApproveReleaseImpl) TicketApproved(ctx context.Context, f *ApproveReleaseFlow) error {
	// TODO: check ticketApproved; set f.Continuation fields later states need.
	return errors.New("approve_release: TicketApproved is not implemented yet")
}
