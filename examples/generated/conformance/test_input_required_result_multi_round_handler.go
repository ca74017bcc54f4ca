package conformance

import "context"

// TestInputRequiredResultMultiRoundImpl implements TestInputRequiredResultMultiRoundHandler for tool test_input_required_result_multi_round: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestInputRequiredResultMultiRoundImpl struct{}

var _ TestInputRequiredResultMultiRoundHandler = (*TestInputRequiredResultMultiRoundImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestInputRequiredResultMultiRoundImpl) Authorize(context.Context, *TestInputRequiredResultMultiRoundFlow) error {
	return nil
}
