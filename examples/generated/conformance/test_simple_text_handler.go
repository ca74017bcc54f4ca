package conformance

import "context"

// TestSimpleTextImpl implements TestSimpleTextHandler for tool test_simple_text: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestSimpleTextImpl struct{}

var _ TestSimpleTextHandler = (*TestSimpleTextImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestSimpleTextImpl) Authorize(context.Context, *TestSimpleTextFlow) error { return nil }
