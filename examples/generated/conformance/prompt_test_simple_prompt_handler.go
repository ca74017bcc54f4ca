package conformance

import "context"

// TestSimplePromptImpl implements TestSimplePromptHandler for prompt test_simple_prompt: the spec is the whole
// fixture, so the handler only lets everyone in.
type TestSimplePromptImpl struct{}

var _ TestSimplePromptHandler = (*TestSimplePromptImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestSimplePromptImpl) Authorize(context.Context, *TestSimplePromptFlow) error { return nil }
