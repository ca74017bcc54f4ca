package conformance

import "context"

// TestInputRequiredResultElicitationImpl implements TestInputRequiredResultElicitationHandler for tool test_input_required_result_elicitation: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestInputRequiredResultElicitationImpl struct{}

var _ TestInputRequiredResultElicitationHandler = (*TestInputRequiredResultElicitationImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestInputRequiredResultElicitationImpl) Authorize(context.Context, *TestInputRequiredResultElicitationFlow) error {
	return nil
}
