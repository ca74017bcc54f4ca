// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package prompts

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// GreetingImpl implements GreetingHandler for prompt greeting.
// Give it what the methods need: a database handle, API clients.
type GreetingImpl struct{}

var _ GreetingHandler = (*GreetingImpl)(nil)

// Authorize decides whether f.Call.Principal may run greeting with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *GreetingImpl) Authorize(ctx context.Context, f *GreetingFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("greeting: Authorize is not implemented yet")
}
