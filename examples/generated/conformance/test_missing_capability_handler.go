/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package conformance

import (
	"context"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TestMissingCapabilityImpl implements TestMissingCapabilityHandler for tool test_missing_capability.
// Give it what the methods need: a database handle, API clients.
type TestMissingCapabilityImpl struct{}

var _ TestMissingCapabilityHandler = (*TestMissingCapabilityImpl)(nil)

// Authorize decides whether f.Call.Principal may run test_missing_capability with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *TestMissingCapabilityImpl) Authorize(ctx context.Context, f *TestMissingCapabilityFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("test_missing_capability: Authorize is not implemented yet")
}
