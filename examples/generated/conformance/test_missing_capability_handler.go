package conformance

import "context"

// TestMissingCapabilityImpl implements TestMissingCapabilityHandler for tool test_missing_capability: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestMissingCapabilityImpl struct{}

var _ TestMissingCapabilityHandler = (*TestMissingCapabilityImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestMissingCapabilityImpl) Authorize(context.Context, *TestMissingCapabilityFlow) error {
	return nil
}
