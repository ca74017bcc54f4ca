package conformance

import "context"

// TestInputRequiredResultListRootsImpl implements TestInputRequiredResultListRootsHandler for tool test_input_required_result_list_roots: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestInputRequiredResultListRootsImpl struct{}

var _ TestInputRequiredResultListRootsHandler = (*TestInputRequiredResultListRootsImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestInputRequiredResultListRootsImpl) Authorize(context.Context, *TestInputRequiredResultListRootsFlow) error {
	return nil
}
