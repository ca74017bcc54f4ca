package conformance

import "context"

// TestInputRequiredResultRequestStateImpl implements TestInputRequiredResultRequestStateHandler for tool test_input_required_result_request_state: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestInputRequiredResultRequestStateImpl struct{}

var _ TestInputRequiredResultRequestStateHandler = (*TestInputRequiredResultRequestStateImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestInputRequiredResultRequestStateImpl) Authorize(context.Context, *TestInputRequiredResultRequestStateFlow) error {
	return nil
}
