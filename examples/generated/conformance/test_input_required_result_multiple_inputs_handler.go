/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package conformance

import (
	"context"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TestInputRequiredResultMultipleInputsImpl implements TestInputRequiredResultMultipleInputsHandler for tool test_input_required_result_multiple_inputs.
// Give it what the methods need: a database handle, API clients.
type TestInputRequiredResultMultipleInputsImpl struct{}

var _ TestInputRequiredResultMultipleInputsHandler = (*TestInputRequiredResultMultipleInputsImpl)(nil)

// Authorize decides whether f.Call.Principal may run test_input_required_result_multiple_inputs with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TestInputRequiredResultMultipleInputsImpl) Authorize(ctx context.Context, f *TestInputRequiredResultMultipleInputsFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("test_input_required_result_multiple_inputs: Authorize is not implemented yet")
}
