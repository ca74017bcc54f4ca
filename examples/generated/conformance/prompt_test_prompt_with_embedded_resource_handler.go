package conformance

import "context"

// TestPromptWithEmbeddedResourceImpl implements TestPromptWithEmbeddedResourceHandler for prompt test_prompt_with_embedded_resource: the spec is the whole
// fixture, so the handler only lets everyone in.
type TestPromptWithEmbeddedResourceImpl struct{}

var _ TestPromptWithEmbeddedResourceHandler = (*TestPromptWithEmbeddedResourceImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestPromptWithEmbeddedResourceImpl) Authorize(context.Context, *TestPromptWithEmbeddedResourceFlow) error {
	return nil
}
