package conformance

import "context"

// StaticBinaryImpl implements StaticBinaryHandler for resource static_binary: the spec is the whole
// fixture, and the handler gives the media's bytes.
type StaticBinaryImpl struct{}

var _ StaticBinaryHandler = (*StaticBinaryImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*StaticBinaryImpl) Authorize(context.Context, *StaticBinaryFlow) error { return nil }

// RedPixel returns the fixture's 1x1 red PNG.
func (*StaticBinaryImpl) RedPixel(context.Context, *StaticBinaryFlow) ([]byte, error) {
	return redPixelPNG(), nil
}
