/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package conformance

import (
	"context"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TestInputRequiredResultMultiRoundImpl implements TestInputRequiredResultMultiRoundHandler for tool test_input_required_result_multi_round.
// Give it what the methods need: a database handle, API clients.
type TestInputRequiredResultMultiRoundImpl struct{}

var _ TestInputRequiredResultMultiRoundHandler = (*TestInputRequiredResultMultiRoundImpl)(nil)

// Authorize decides whether f.Call.Principal may run test_input_required_result_multi_round with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TestInputRequiredResultMultiRoundImpl) Authorize(ctx context.Context, f *TestInputRequiredResultMultiRoundFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("test_input_required_result_multi_round: Authorize is not implemented yet")
}
