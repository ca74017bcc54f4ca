package conformance

import "context"

// TestInputRequiredResultSamplingImpl implements TestInputRequiredResultSamplingHandler for tool test_input_required_result_sampling: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestInputRequiredResultSamplingImpl struct{}

var _ TestInputRequiredResultSamplingHandler = (*TestInputRequiredResultSamplingImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestInputRequiredResultSamplingImpl) Authorize(context.Context, *TestInputRequiredResultSamplingFlow) error {
	return nil
}
