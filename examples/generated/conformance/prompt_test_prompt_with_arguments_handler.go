package conformance

import "context"

// TestPromptWithArgumentsImpl implements TestPromptWithArgumentsHandler for prompt test_prompt_with_arguments: the spec is the whole
// fixture, so the handler only lets everyone in.
type TestPromptWithArgumentsImpl struct{}

var _ TestPromptWithArgumentsHandler = (*TestPromptWithArgumentsImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestPromptWithArgumentsImpl) Authorize(context.Context, *TestPromptWithArgumentsFlow) error {
	return nil
}
