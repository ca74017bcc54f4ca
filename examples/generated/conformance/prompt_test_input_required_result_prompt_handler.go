package conformance

import "context"

// TestInputRequiredResultPromptImpl implements TestInputRequiredResultPromptHandler for prompt test_input_required_result_prompt: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestInputRequiredResultPromptImpl struct{}

var _ TestInputRequiredResultPromptHandler = (*TestInputRequiredResultPromptImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestInputRequiredResultPromptImpl) Authorize(context.Context, *TestInputRequiredResultPromptFlow) error {
	return nil
}
