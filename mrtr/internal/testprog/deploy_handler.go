package testprog

import (
	"context"
	"sync"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
)

// DeployImpl is the deploy handler the runtime's tests drive: it records
// each set of services it deployed.
type DeployImpl struct {
	mu       sync.Mutex
	Deployed []string // one entry per deployment: "env: services"
}

var _ DeployHandler = (*DeployImpl)(nil)

func (h *DeployImpl) Authorize(ctx context.Context, f *DeployFlow) error { return nil }

func (h *DeployImpl) DeployServices(ctx context.Context, f *DeployFlow) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Deployed = append(h.Deployed, string(f.Args.Env)+": "+mrtrimpl.Join(f.Pick.Services))
	return nil
}

// Deployments returns what was deployed, in order.
func (h *DeployImpl) Deployments() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.Deployed...)
}
