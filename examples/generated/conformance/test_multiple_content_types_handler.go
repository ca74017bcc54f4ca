package conformance

import "context"

// TestMultipleContentTypesImpl implements TestMultipleContentTypesHandler for tool test_multiple_content_types: the spec is the whole
// fixture, and the handler gives the media's bytes.
type TestMultipleContentTypesImpl struct{}

var _ TestMultipleContentTypesHandler = (*TestMultipleContentTypesImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestMultipleContentTypesImpl) Authorize(context.Context, *TestMultipleContentTypesFlow) error {
	return nil
}

// RedPixel returns the fixture's 1x1 red PNG.
func (*TestMultipleContentTypesImpl) RedPixel(context.Context, *TestMultipleContentTypesFlow) ([]byte, error) {
	return redPixelPNG(), nil
}
