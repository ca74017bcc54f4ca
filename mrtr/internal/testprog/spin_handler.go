/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package testprog

import (
	"context"
	"errors"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// SpinImpl implements SpinHandler for tool spin.
// Give it what the methods need: a database handle, API clients.
type SpinImpl struct{}

var _ SpinHandler = (*SpinImpl)(nil)

// Authorize decides whether f.Call.Principal may run spin with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *SpinImpl) Authorize(ctx context.Context, f *SpinFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("spin: Authorize is not implemented yet")
}

// TurnWheel is the check of state turn (mrtr/internal/testprog/testprog.mrtr.yaml:112:16).
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *SpinImpl) TurnWheel(ctx context.Context, f *SpinFlow) (SpinTurnWheelOutcome, error) {
	// TODO: check turnWheel; set f.Continuation fields later states need.
	return 0, errors.New("spin: TurnWheel is not implemented yet")
}
