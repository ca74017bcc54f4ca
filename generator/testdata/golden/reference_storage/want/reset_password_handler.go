// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package accounts

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ResetPasswordImpl implements ResetPasswordHandler for tool reset_password.
// Give it what the methods need: a database handle, API clients.
type ResetPasswordImpl struct{}

var _ ResetPasswordHandler = (*ResetPasswordImpl)(nil)

// Authorize decides whether f.Call.Principal may run reset_password with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ResetPasswordImpl) Authorize(ctx context.Context, f *ResetPasswordFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("reset_password: Authorize is not implemented yet")
}

// FindUser is the check of state lookup.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ResetPasswordImpl) FindUser(ctx context.Context, f *ResetPasswordFlow) error {
	// TODO: check findUser; set f.Continuation fields later states need.
	return errors.New("reset_password: FindUser is not implemented yet")
}

// StillActive is the check of state recheck.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ResetPasswordImpl) StillActive(ctx context.Context, f *ResetPasswordFlow) error {
	// TODO: check stillActive; set f.Continuation fields later states need.
	return errors.New("reset_password: StillActive is not implemented yet")
}

// SendResetLink is the irreversible side effect of state send. Once it returned, it is not run
// again for this workflow round: retries replay its outcome. If the instance running it dies first,
// a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *ResetPasswordImpl) SendResetLink(ctx context.Context, f *ResetPasswordFlow) error {
	// TODO: perform sendResetLink; record its results in f.Continuation.
	return errors.New("reset_password: SendResetLink is not implemented yet")
}
