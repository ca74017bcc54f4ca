package conformancetasks

import "context"

// ConfirmDeleteImpl implements ConfirmDeleteHandler for tool
// confirm_delete: a task whose first step finds the file, and which then
// asks, through the task, to confirm the deletion (the spec's gate). The
// fixture keeps no files: it finds every name and deletes nothing; its
// result says what a real tool would have done, which is all the suite
// reads.
type ConfirmDeleteImpl struct{}

var _ ConfirmDeleteHandler = (*ConfirmDeleteImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*ConfirmDeleteImpl) Authorize(context.Context, *ConfirmDeleteFlow) error { return nil }

// LocateFile finds every file: the fixture has no file system.
func (*ConfirmDeleteImpl) LocateFile(context.Context, *ConfirmDeleteFlow) error { return nil }
