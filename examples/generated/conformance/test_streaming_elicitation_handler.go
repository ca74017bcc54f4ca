package conformance

import "context"

// TestStreamingElicitationImpl implements TestStreamingElicitationHandler for tool test_streaming_elicitation: the spec is the
// whole fixture, so the handler only lets everyone in.
type TestStreamingElicitationImpl struct{}

var _ TestStreamingElicitationHandler = (*TestStreamingElicitationImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestStreamingElicitationImpl) Authorize(context.Context, *TestStreamingElicitationFlow) error {
	return nil
}
