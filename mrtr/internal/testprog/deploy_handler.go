package testprog

import (
	"context"
	"strings"
	"sync"
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
	names := make([]string, len(f.Pick.Services))
	for i, s := range f.Pick.Services {
		names[i] = string(s)
	}
	h.Deployed = append(h.Deployed, string(f.Args.Env)+": "+strings.Join(names, ", "))
	return nil
}

// Deployments returns what was deployed, in order.
func (h *DeployImpl) Deployments() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.Deployed...)
}
