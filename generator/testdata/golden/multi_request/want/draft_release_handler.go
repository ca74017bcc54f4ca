// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package release

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// DraftReleaseImpl implements DraftReleaseHandler for tool draft_release.
// Give it what the methods need: a database handle, API clients.
type DraftReleaseImpl struct{}

var _ DraftReleaseHandler = (*DraftReleaseImpl)(nil)

// Authorize decides whether f.Call.Principal may run draft_release with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *DraftReleaseImpl) Authorize(ctx context.Context, f *DraftReleaseFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("draft_release: Authorize is not implemented yet")
}

// CollectChanges is the check of state collect.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *DraftReleaseImpl) CollectChanges(ctx context.Context, f *DraftReleaseFlow) error {
	// TODO: check collectChanges; set f.Continuation fields later states need.
	return errors.New("draft_release: CollectChanges is not implemented yet")
}

// PublishNotes is the check of state publish.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *DraftReleaseImpl) PublishNotes(ctx context.Context, f *DraftReleaseFlow) error {
	// TODO: check publishNotes; set f.Continuation fields later states need.
	return errors.New("draft_release: PublishNotes is not implemented yet")
}
