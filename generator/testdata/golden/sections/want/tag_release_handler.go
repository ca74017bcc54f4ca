// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package releases

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TagReleaseImpl implements TagReleaseHandler for tool tag_release.
// Give it what the methods need: a database handle, API clients.
type TagReleaseImpl struct{}

var _ TagReleaseHandler = (*TagReleaseImpl)(nil)

// Authorize decides whether f.Call.Principal may run tag_release with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TagReleaseImpl) Authorize(ctx context.Context, f *TagReleaseFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("tag_release: Authorize is not implemented yet")
}

// ReleaseExists is the check of state lookup. It must set f.Continuation.Services,
// f.Continuation.Shards before it returns (sets: in the spec); a value still empty fails the round.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *TagReleaseImpl) ReleaseExists(ctx context.Context, f *TagReleaseFlow) error {
	// TODO: check releaseExists; set f.Continuation fields later states need.
	return errors.New("tag_release: ReleaseExists is not implemented yet")
}
