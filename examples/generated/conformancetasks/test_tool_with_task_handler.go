package conformancetasks

import "context"

// TestToolWithTaskImpl implements TestToolWithTaskHandler for tool
// test_tool_with_task: it asks for a name in an MRTR round of tools/call,
// and the round that has it is answered with a CreateTaskResult; the task
// greets the name (the suite checks that the task's result carries it).
type TestToolWithTaskImpl struct{}

var _ TestToolWithTaskHandler = (*TestToolWithTaskImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestToolWithTaskImpl) Authorize(context.Context, *TestToolWithTaskFlow) error { return nil }

// Work is the task's step: the answer of the MRTR round reaches it in the
// flow (f.UserName), and the spec's terminal state greets it.
func (*TestToolWithTaskImpl) Work(context.Context, *TestToolWithTaskFlow) error { return nil }
