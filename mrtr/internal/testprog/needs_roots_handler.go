/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package testprog

import (
	"context"
	"errors"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// NeedsRootsImpl implements NeedsRootsHandler for tool needs_roots.
// Give it what the methods need: a database handle, API clients.
type NeedsRootsImpl struct{}

var _ NeedsRootsHandler = (*NeedsRootsImpl)(nil)

// Authorize decides whether f.Call.Principal may run needs_roots with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *NeedsRootsImpl) Authorize(ctx context.Context, f *NeedsRootsFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("needs_roots: Authorize is not implemented yet")
}

// Probe is the check of state probe (mrtr/internal/testprog/testprog.mrtr.yaml:126:16).
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *NeedsRootsImpl) Probe(ctx context.Context, f *NeedsRootsFlow) error {
	// TODO: check probe; set f.Continuation fields later states need.
	return errors.New("needs_roots: Probe is not implemented yet")
}
