// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package tickets

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TriageTicketImpl implements TriageTicketHandler for tool triage_ticket.
// Give it what the methods need: a database handle, API clients.
type TriageTicketImpl struct{}

var _ TriageTicketHandler = (*TriageTicketImpl)(nil)

// Authorize decides whether f.Call.Principal may run triage_ticket with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TriageTicketImpl) Authorize(ctx context.Context, f *TriageTicketFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("triage_ticket: Authorize is not implemented yet")
}

// LoadTicket is the check of state lookup.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *TriageTicketImpl) LoadTicket(ctx context.Context, f *TriageTicketFlow) error {
	// TODO: check loadTicket; set f.Continuation fields later states need.
	return errors.New("triage_ticket: LoadTicket is not implemented yet")
}

// SaveTriage is the check of state save.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *TriageTicketImpl) SaveTriage(ctx context.Context, f *TriageTicketFlow) error {
	// TODO: check saveTriage; set f.Continuation fields later states need.
	return errors.New("triage_ticket: SaveTriage is not implemented yet")
}
