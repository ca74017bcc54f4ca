/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package onboarding

import (
	"context"
	"errors"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ProvisionWorkspaceImpl implements ProvisionWorkspaceHandler for tool provision_workspace.
// Give it what the methods need: a database handle, API clients.
type ProvisionWorkspaceImpl struct{}

var _ ProvisionWorkspaceHandler = (*ProvisionWorkspaceImpl)(nil)

// Authorize decides whether f.Call.Principal may run provision_workspace with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ProvisionWorkspaceImpl) Authorize(ctx context.Context, f *ProvisionWorkspaceFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("provision_workspace: Authorize is not implemented yet")
}

// TeamCanProvision is the check of state lookupTeam (examples/specs/onboarding.mrtr.yaml:43:16).
// The team exists, has no workspace yet, and has a budget.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ProvisionWorkspaceImpl) TeamCanProvision(ctx context.Context, f *ProvisionWorkspaceFlow) error {
	// TODO: check teamCanProvision; set f.Continuation fields later states need.
	return errors.New("provision_workspace: TeamCanProvision is not implemented yet")
}

// QuotePlan is the check of state quote (examples/specs/onboarding.mrtr.yaml:68:16).
// Price the plan; the seats must fit the budget discovered in round 1.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ProvisionWorkspaceImpl) QuotePlan(ctx context.Context, f *ProvisionWorkspaceFlow) error {
	// TODO: check quotePlan; set f.Continuation fields later states need.
	return errors.New("provision_workspace: QuotePlan is not implemented yet")
}

// CreateWorkspace is the side effect of state create (examples/specs/onboarding.mrtr.yaml:101:17). It runs at most once per
// workflow round; retries replay its outcome. Store its results in f.Continuation.
// Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *ProvisionWorkspaceImpl) CreateWorkspace(ctx context.Context, f *ProvisionWorkspaceFlow) error {
	// TODO: perform createWorkspace; record its results in f.Continuation.
	return errors.New("provision_workspace: CreateWorkspace is not implemented yet")
}
