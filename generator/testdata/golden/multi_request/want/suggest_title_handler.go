// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package release

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// SuggestTitleImpl implements SuggestTitleHandler for tool suggest_title.
// Give it what the methods need: a database handle, API clients.
type SuggestTitleImpl struct{}

var _ SuggestTitleHandler = (*SuggestTitleImpl)(nil)

// Authorize decides whether f.Call.Principal may run suggest_title with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *SuggestTitleImpl) Authorize(ctx context.Context, f *SuggestTitleFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("suggest_title: Authorize is not implemented yet")
}

// LoadTopic is the check of state lookup.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *SuggestTitleImpl) LoadTopic(ctx context.Context, f *SuggestTitleFlow) error {
	// TODO: check loadTopic; set f.Continuation fields later states need.
	return errors.New("suggest_title: LoadTopic is not implemented yet")
}
