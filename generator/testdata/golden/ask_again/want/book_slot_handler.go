// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package releases

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// BookSlotImpl implements BookSlotHandler for tool book_slot.
// Give it what the methods need: a database handle, API clients.
type BookSlotImpl struct{}

var _ BookSlotHandler = (*BookSlotImpl)(nil)

// Authorize decides whether f.Call.Principal may run book_slot with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *BookSlotImpl) Authorize(ctx context.Context, f *BookSlotFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("book_slot: Authorize is not implemented yet")
}

// SystemExists is the check of state inspect.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *BookSlotImpl) SystemExists(ctx context.Context, f *BookSlotFlow) error {
	// TODO: check systemExists; set f.Continuation fields later states need.
	return errors.New("book_slot: SystemExists is not implemented yet")
}

// ReserveSlot is the check of state reserve. Return mrtr.Reject to refuse the request with a
// message; any other error is a dependency failure. In state reserve, return mrtr.AskAgain with a
// message for the user to ask askSlot again (2 answers in all; then full).
func (h *BookSlotImpl) ReserveSlot(ctx context.Context, f *BookSlotFlow) (BookSlotReserveSlotOutcome, error) {
	// TODO: check reserveSlot; set f.Continuation fields later states need.
	return 0, errors.New("book_slot: ReserveSlot is not implemented yet")
}
