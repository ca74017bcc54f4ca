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

// VaultImpl implements VaultHandler for tool vault.
// Give it what the methods need: a database handle, API clients.
type VaultImpl struct{}

var _ VaultHandler = (*VaultImpl)(nil)

// Authorize decides whether f.Call.Principal may run vault with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *VaultImpl) Authorize(ctx context.Context, f *VaultFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("vault: Authorize is not implemented yet")
}

// LoadVault is the check of state load (mrtr/internal/testprog/testprog.mrtr.yaml:87:16).
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *VaultImpl) LoadVault(ctx context.Context, f *VaultFlow) error {
	// TODO: check loadVault; set f.Continuation fields later states need.
	return errors.New("vault: LoadVault is not implemented yet")
}

// OpenVault is the side effect of state open (mrtr/internal/testprog/testprog.mrtr.yaml:98:17). It runs at most once per
// workflow round; retries replay its outcome. Store its results in f.Continuation.
// Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *VaultImpl) OpenVault(ctx context.Context, f *VaultFlow) error {
	// TODO: perform openVault; record its results in f.Continuation.
	return errors.New("vault: OpenVault is not implemented yet")
}
