// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package tickets

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// FileTicketImpl implements FileTicketHandler for tool file_ticket.
// Give it what the methods need: a database handle, API clients.
type FileTicketImpl struct{}

var _ FileTicketHandler = (*FileTicketImpl)(nil)

// Authorize decides whether f.Call.Principal may run file_ticket with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *FileTicketImpl) Authorize(ctx context.Context, f *FileTicketFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("file_ticket: Authorize is not implemented yet")
}

// ReleaseExists is the check of state lookup. It must set f.Continuation.Running before it returns
// (sets: in the spec); a value still empty fails the round. Return mrtr.Reject to refuse the
// request with a message; any other error is a dependency failure.
func (h *FileTicketImpl) ReleaseExists(ctx context.Context, f *FileTicketFlow) error {
	// TODO: check releaseExists; set f.Continuation fields later states need.
	return errors.New("file_ticket: ReleaseExists is not implemented yet")
}

// CoversRelease is custom validator coversRelease; it runs once value has passed the spec's
// built-in constraints. The ticket is for this release, the running version and the change kind. It
// reads release, running, change.kind of the flow (in, reads: in the spec). An mrtr.Invalid counts
// against the ask's maxAttempts. Return mrtr.Invalid saying what is wrong with value: the user is
// shown it (an answer is asked for again). Any other error means value could not be checked (a
// backend is down): the round fails as a dependency error, and the error goes to the log only.
func (h *FileTicketImpl) CoversRelease(ctx context.Context, value string, in FileTicketCoversReleaseReads) error {
	// TODO: validate value; return nil when it is acceptable, mrtr.Invalid("...") saying what is
	// wrong when it is not.
	return errors.New("file_ticket: CoversRelease is not implemented yet")
}

// SameTeam is custom validator sameTeam; it runs once value has passed the spec's built-in
// constraints. The person is on the release's team. It reads release of the flow (in, reads: in the
// spec). An mrtr.Invalid counts against the ask's maxAttempts. Return mrtr.Invalid saying what is
// wrong with value: the user is shown it (an answer is asked for again). Any other error means
// value could not be checked (a backend is down): the round fails as a dependency error, and the
// error goes to the log only.
func (h *FileTicketImpl) SameTeam(ctx context.Context, value string, in FileTicketSameTeamReads) error {
	// TODO: validate value; return nil when it is acceptable, mrtr.Invalid("...") saying what is
	// wrong when it is not.
	return errors.New("file_ticket: SameTeam is not implemented yet")
}
