package conformance

import "context"

// TestErrorHandlingImpl implements TestErrorHandlingHandler for tool test_error_handling: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestErrorHandlingImpl struct{}

var _ TestErrorHandlingHandler = (*TestErrorHandlingImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestErrorHandlingImpl) Authorize(context.Context, *TestErrorHandlingFlow) error { return nil }
