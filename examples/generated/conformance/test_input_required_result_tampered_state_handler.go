package conformance

import "context"

// TestInputRequiredResultTamperedStateImpl implements TestInputRequiredResultTamperedStateHandler for tool test_input_required_result_tampered_state: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestInputRequiredResultTamperedStateImpl struct{}

var _ TestInputRequiredResultTamperedStateHandler = (*TestInputRequiredResultTamperedStateImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestInputRequiredResultTamperedStateImpl) Authorize(context.Context, *TestInputRequiredResultTamperedStateFlow) error {
	return nil
}
