/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package conformance

import (
	"context"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TestInputRequiredResultRequestStateImpl implements TestInputRequiredResultRequestStateHandler for tool test_input_required_result_request_state.
// Give it what the methods need: a database handle, API clients.
type TestInputRequiredResultRequestStateImpl struct{}

var _ TestInputRequiredResultRequestStateHandler = (*TestInputRequiredResultRequestStateImpl)(nil)

// Authorize decides whether f.Call.Principal may run test_input_required_result_request_state with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TestInputRequiredResultRequestStateImpl) Authorize(ctx context.Context, f *TestInputRequiredResultRequestStateFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("test_input_required_result_request_state: Authorize is not implemented yet")
}
