package conformance

import "context"

// TestEmbeddedResourceImpl implements TestEmbeddedResourceHandler for tool test_embedded_resource: the spec is the whole
// fixture, so the handler only lets everyone in.
type TestEmbeddedResourceImpl struct{}

var _ TestEmbeddedResourceHandler = (*TestEmbeddedResourceImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestEmbeddedResourceImpl) Authorize(context.Context, *TestEmbeddedResourceFlow) error {
	return nil
}
