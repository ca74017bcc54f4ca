// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package assist

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// SummarizeWorkspaceImpl implements SummarizeWorkspaceHandler for tool summarize_workspace.
// Give it what the methods need: a database handle, API clients.
type SummarizeWorkspaceImpl struct{}

var _ SummarizeWorkspaceHandler = (*SummarizeWorkspaceImpl)(nil)

// Authorize decides whether f.Call.Principal may run summarize_workspace with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *SummarizeWorkspaceImpl) Authorize(ctx context.Context, f *SummarizeWorkspaceFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("summarize_workspace: Authorize is not implemented yet")
}

// ScanWorkspace is the check of state scan.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *SummarizeWorkspaceImpl) ScanWorkspace(ctx context.Context, f *SummarizeWorkspaceFlow) error {
	// TODO: check scanWorkspace; set f.Continuation fields later states need.
	return errors.New("summarize_workspace: ScanWorkspace is not implemented yet")
}
