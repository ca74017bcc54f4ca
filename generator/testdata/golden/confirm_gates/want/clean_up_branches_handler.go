// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package cleanup

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// CleanUpBranchesImpl implements CleanUpBranchesHandler for tool clean_up_branches.
// Give it what the methods need: a database handle, API clients.
type CleanUpBranchesImpl struct{}

var _ CleanUpBranchesHandler = (*CleanUpBranchesImpl)(nil)

// Authorize decides whether f.Call.Principal may run clean_up_branches with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *CleanUpBranchesImpl) Authorize(ctx context.Context, f *CleanUpBranchesFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("clean_up_branches: Authorize is not implemented yet")
}

// ScanBranches is the check of state scan.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *CleanUpBranchesImpl) ScanBranches(ctx context.Context, f *CleanUpBranchesFlow) error {
	// TODO: check scanBranches; set f.Continuation fields later states need.
	return errors.New("clean_up_branches: ScanBranches is not implemented yet")
}

// BranchesUnchanged is the check of state recheck.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *CleanUpBranchesImpl) BranchesUnchanged(ctx context.Context, f *CleanUpBranchesFlow) error {
	// TODO: check branchesUnchanged; set f.Continuation fields later states need.
	return errors.New("clean_up_branches: BranchesUnchanged is not implemented yet")
}

// DeleteBranches is the irreversible side effect of state delete. Once it returned, it is not run
// again for this workflow round: retries replay its outcome. If the instance running it dies first,
// a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *CleanUpBranchesImpl) DeleteBranches(ctx context.Context, f *CleanUpBranchesFlow) error {
	// TODO: perform deleteBranches; record its results in f.Continuation.
	return errors.New("clean_up_branches: DeleteBranches is not implemented yet")
}
