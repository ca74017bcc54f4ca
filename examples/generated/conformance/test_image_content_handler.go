package conformance

import "context"

// TestImageContentImpl implements TestImageContentHandler for tool test_image_content: the spec is the whole
// fixture, and the handler gives the media's bytes.
type TestImageContentImpl struct{}

var _ TestImageContentHandler = (*TestImageContentImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestImageContentImpl) Authorize(context.Context, *TestImageContentFlow) error { return nil }

// RedPixel returns the fixture's 1x1 red PNG.
func (*TestImageContentImpl) RedPixel(context.Context, *TestImageContentFlow) ([]byte, error) {
	return redPixelPNG(), nil
}
