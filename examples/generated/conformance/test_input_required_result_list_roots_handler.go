/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package conformance

import (
	"context"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TestInputRequiredResultListRootsImpl implements TestInputRequiredResultListRootsHandler for tool test_input_required_result_list_roots.
// Give it what the methods need: a database handle, API clients.
type TestInputRequiredResultListRootsImpl struct{}

var _ TestInputRequiredResultListRootsHandler = (*TestInputRequiredResultListRootsImpl)(nil)

// Authorize decides whether f.Call.Principal may run test_input_required_result_list_roots with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TestInputRequiredResultListRootsImpl) Authorize(ctx context.Context, f *TestInputRequiredResultListRootsFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("test_input_required_result_list_roots: Authorize is not implemented yet")
}
