package conformance

import "context"

// TestInputRequiredResultMultipleInputsImpl implements TestInputRequiredResultMultipleInputsHandler for tool test_input_required_result_multiple_inputs: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestInputRequiredResultMultipleInputsImpl struct{}

var _ TestInputRequiredResultMultipleInputsHandler = (*TestInputRequiredResultMultipleInputsImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestInputRequiredResultMultipleInputsImpl) Authorize(context.Context, *TestInputRequiredResultMultipleInputsFlow) error {
	return nil
}
