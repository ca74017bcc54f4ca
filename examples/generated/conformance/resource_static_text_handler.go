package conformance

import "context"

// StaticTextImpl implements StaticTextHandler for resource static_text: the spec is the whole
// fixture, so the handler only lets everyone in.
type StaticTextImpl struct{}

var _ StaticTextHandler = (*StaticTextImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*StaticTextImpl) Authorize(context.Context, *StaticTextFlow) error { return nil }
