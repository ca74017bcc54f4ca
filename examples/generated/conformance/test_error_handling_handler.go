/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package conformance

import (
	"context"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TestErrorHandlingImpl implements TestErrorHandlingHandler for tool test_error_handling.
// Give it what the methods need: a database handle, API clients.
type TestErrorHandlingImpl struct{}

var _ TestErrorHandlingHandler = (*TestErrorHandlingImpl)(nil)

// Authorize decides whether f.Call.Principal may run test_error_handling with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TestErrorHandlingImpl) Authorize(ctx context.Context, f *TestErrorHandlingFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("test_error_handling: Authorize is not implemented yet")
}
