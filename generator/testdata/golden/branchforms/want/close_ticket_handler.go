// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package tickets

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// CloseTicketImpl implements CloseTicketHandler for tool close_ticket.
// Give it what the methods need: a database handle, API clients.
type CloseTicketImpl struct{}

var _ CloseTicketHandler = (*CloseTicketImpl)(nil)

// Authorize decides whether f.Call.Principal may run close_ticket with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *CloseTicketImpl) Authorize(ctx context.Context, f *CloseTicketFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("close_ticket: Authorize is not implemented yet")
}

// LookupTicket is the check of state lookup. The ticket exists and is open. It must set
// f.Continuation.Title before it returns (sets: in the spec); a value still empty fails the round.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *CloseTicketImpl) LookupTicket(ctx context.Context, f *CloseTicketFlow) error {
	// TODO: check lookupTicket; set f.Continuation fields later states need.
	return errors.New("close_ticket: LookupTicket is not implemented yet")
}

// CloseTicket is the side effect of state close. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *CloseTicketImpl) CloseTicket(ctx context.Context, f *CloseTicketFlow) error {
	// TODO: perform closeTicket; record its results in f.Continuation.
	return errors.New("close_ticket: CloseTicket is not implemented yet")
}
