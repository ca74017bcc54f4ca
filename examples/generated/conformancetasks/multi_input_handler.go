package conformancetasks

import "context"

// MultiInputImpl implements MultiInputHandler for tool multi_input: a task
// that asks two questions at once through the task, so that a client may
// answer them one at a time (tasks/update with one key keeps the task
// input_required on the other).
type MultiInputImpl struct{}

var _ MultiInputHandler = (*MultiInputImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*MultiInputImpl) Authorize(context.Context, *MultiInputFlow) error { return nil }

// Begin is the task's first step, where the task starts: it has nothing
// to do but put the questions after it inside the task.
func (*MultiInputImpl) Begin(context.Context, *MultiInputFlow) error { return nil }
