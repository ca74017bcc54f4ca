package conformancetasks

import "context"

// GreetImpl implements GreetHandler for tool greet, the suite's sync tool:
// the spec is the whole fixture ("Hello, {name}!"), so the handler only
// lets everyone in.
type GreetImpl struct{}

var _ GreetHandler = (*GreetImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*GreetImpl) Authorize(context.Context, *GreetFlow) error { return nil }
