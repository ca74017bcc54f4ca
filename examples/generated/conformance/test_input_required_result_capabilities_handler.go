package conformance

import "context"

// TestInputRequiredResultCapabilitiesImpl implements TestInputRequiredResultCapabilitiesHandler for tool test_input_required_result_capabilities: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestInputRequiredResultCapabilitiesImpl struct{}

var _ TestInputRequiredResultCapabilitiesHandler = (*TestInputRequiredResultCapabilitiesImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestInputRequiredResultCapabilitiesImpl) Authorize(context.Context, *TestInputRequiredResultCapabilitiesFlow) error {
	return nil
}
