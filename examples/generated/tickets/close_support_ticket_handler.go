/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package tickets

import (
	"context"
	"errors"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// CloseSupportTicketImpl implements CloseSupportTicketHandler for tool close_support_ticket.
// Give it what the methods need: a database handle, API clients.
type CloseSupportTicketImpl struct{}

var _ CloseSupportTicketHandler = (*CloseSupportTicketImpl)(nil)

// Authorize decides whether f.Call.Principal may run close_support_ticket with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *CloseSupportTicketImpl) Authorize(ctx context.Context, f *CloseSupportTicketFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("close_support_ticket: Authorize is not implemented yet")
}

// TicketIsOpen is the check of state lookup (examples/specs/tickets.mrtr.yaml:37:16).
// The ticket exists, is open, and the caller may close it.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *CloseSupportTicketImpl) TicketIsOpen(ctx context.Context, f *CloseSupportTicketFlow) error {
	// TODO: check ticketIsOpen; set f.Continuation fields later states need.
	return errors.New("close_support_ticket: TicketIsOpen is not implemented yet")
}

// CloseTicket is the side effect of state close (examples/specs/tickets.mrtr.yaml:61:17). It runs at most once per
// operation id close-{ticketId}; retries replay its outcome. Store its results in f.Continuation.
// Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *CloseSupportTicketImpl) CloseTicket(ctx context.Context, f *CloseSupportTicketFlow) error {
	// TODO: perform closeTicket; record its results in f.Continuation.
	return errors.New("close_support_ticket: CloseTicket is not implemented yet")
}

// NoSecrets is custom validator noSecrets (examples/specs/tickets.mrtr.yaml:11:3): return an error saying what is wrong with value.
// Rejects text that looks like a password, token or API key.
func (h *CloseSupportTicketImpl) NoSecrets(ctx context.Context, value string) error {
	// TODO: validate value; return nil when it is acceptable.
	return errors.New("close_support_ticket: NoSecrets is not implemented yet")
}
