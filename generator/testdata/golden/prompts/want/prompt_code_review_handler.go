// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package prompts

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// CodeReviewImpl implements CodeReviewHandler for prompt code_review.
// Give it what the methods need: a database handle, API clients.
type CodeReviewImpl struct{}

var _ CodeReviewHandler = (*CodeReviewImpl)(nil)

// Authorize decides whether f.Call.Principal may run code_review with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *CodeReviewImpl) Authorize(ctx context.Context, f *CodeReviewFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("code_review: Authorize is not implemented yet")
}

// LoadChange is the check of state lookup.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *CodeReviewImpl) LoadChange(ctx context.Context, f *CodeReviewFlow) error {
	// TODO: check loadChange; set f.Continuation fields later states need.
	return errors.New("code_review: LoadChange is not implemented yet")
}
