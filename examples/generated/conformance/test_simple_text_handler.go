/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package conformance

import (
	"context"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TestSimpleTextImpl implements TestSimpleTextHandler for tool test_simple_text.
// Give it what the methods need: a database handle, API clients.
type TestSimpleTextImpl struct{}

var _ TestSimpleTextHandler = (*TestSimpleTextImpl)(nil)

// Authorize decides whether f.Call.Principal may run test_simple_text with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TestSimpleTextImpl) Authorize(ctx context.Context, f *TestSimpleTextFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("test_simple_text: Authorize is not implemented yet")
}
