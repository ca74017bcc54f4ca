package conformance

import "context"

// TestPromptWithImageImpl implements TestPromptWithImageHandler for prompt test_prompt_with_image: the spec is the whole
// fixture, and the handler gives the media's bytes.
type TestPromptWithImageImpl struct{}

var _ TestPromptWithImageHandler = (*TestPromptWithImageImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestPromptWithImageImpl) Authorize(context.Context, *TestPromptWithImageFlow) error {
	return nil
}

// RedPixel returns the fixture's 1x1 red PNG.
func (*TestPromptWithImageImpl) RedPixel(context.Context, *TestPromptWithImageFlow) ([]byte, error) {
	return redPixelPNG(), nil
}
