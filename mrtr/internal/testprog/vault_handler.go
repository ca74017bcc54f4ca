package testprog

import (
	"context"
	"sync"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// VaultImpl keeps the vault's owner in a sensitive continuation field: the
// runtime must keep it server-side.
type VaultImpl struct {
	mu     sync.Mutex
	Opened int
}

var _ VaultHandler = (*VaultImpl)(nil)

func (h *VaultImpl) Authorize(ctx context.Context, f *VaultFlow) error { return nil }

func (h *VaultImpl) LoadVault(ctx context.Context, f *VaultFlow) error {
	f.Continuation.Owner = "owner-of-" + f.Args.VaultID
	return nil
}

func (h *VaultImpl) OpenVault(ctx context.Context, f *VaultFlow) error {
	if f.Continuation.Owner != "owner-of-"+f.Args.VaultID {
		return mrtr.Reject("the continuation lost the owner")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Opened++
	return nil
}
