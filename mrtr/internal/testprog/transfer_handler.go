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

// TransferImpl implements TransferHandler for tool transfer.
// Give it what the methods need: a database handle, API clients.
type TransferImpl struct{}

var _ TransferHandler = (*TransferImpl)(nil)

// Authorize decides whether f.Call.Principal may run transfer with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TransferImpl) Authorize(ctx context.Context, f *TransferFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("transfer: Authorize is not implemented yet")
}

// InspectAccount is the check of state inspect (mrtr/internal/testprog/testprog.mrtr.yaml:33:16).
// The account exists; frozen accounts cannot send.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *TransferImpl) InspectAccount(ctx context.Context, f *TransferFlow) (TransferInspectAccountOutcome, error) {
	// TODO: check inspectAccount; set f.Continuation fields later states need.
	return 0, errors.New("transfer: InspectAccount is not implemented yet")
}

// AccountStillOpen is the check of state recheck (mrtr/internal/testprog/testprog.mrtr.yaml:57:16).
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *TransferImpl) AccountStillOpen(ctx context.Context, f *TransferFlow) error {
	// TODO: check accountStillOpen; set f.Continuation fields later states need.
	return errors.New("transfer: AccountStillOpen is not implemented yet")
}

// SendMoney is the irreversible side effect of state send (mrtr/internal/testprog/testprog.mrtr.yaml:60:17). It runs at most once per
// operation id transfer-{account}-{amount}; retries replay its outcome. Store its results in f.Continuation.
// Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *TransferImpl) SendMoney(ctx context.Context, f *TransferFlow) error {
	// TODO: perform sendMoney; record its results in f.Continuation.
	return errors.New("transfer: SendMoney is not implemented yet")
}

// NotBlank is custom validator notBlank (mrtr/internal/testprog/testprog.mrtr.yaml:12:3): return an error saying what is wrong with value.
// Rejects whitespace-only text.
func (h *TransferImpl) NotBlank(ctx context.Context, value string) error {
	// TODO: validate value; return nil when it is acceptable.
	return errors.New("transfer: NotBlank is not implemented yet")
}
