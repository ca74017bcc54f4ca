package testprog

import (
	"context"
	"slices"
	"sync"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RetireImpl keeps each team's environments, which the check offers as
// the options of the question; RetireEnvironment deletes the one picked,
// so that a second workflow picking it again is asked again (the option
// is gone). Reset puts back the seed (team web: production, qa, staging);
// Retired counts the environments retired. mallory is refused.
type RetireImpl struct {
	mu      sync.Mutex
	envs    map[string][]string
	retired int
}

var _ RetireHandler = (*RetireImpl)(nil)

// Reset puts back every environment retired.
func (h *RetireImpl) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.envs = nil
}

// Retired counts the environments retired so far.
func (h *RetireImpl) Retired() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.retired
}

// team is the environments of a team; h.mu is held.
func (h *RetireImpl) team(name string) []string {
	if h.envs == nil {
		h.envs = map[string][]string{"web": {"production", "qa", "staging"}, "api": {"production"}}
	}
	return h.envs[name]
}

func (h *RetireImpl) Authorize(ctx context.Context, f *RetireFlow) error {
	if f.Call.Principal == "mallory" {
		return mrtr.Forbidden("mallory may not retire environments")
	}
	return nil
}

func (h *RetireImpl) ListEnvironments(ctx context.Context, f *RetireFlow) (RetireListEnvironmentsOutcome, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	envs := h.team(f.Args.Team)
	if len(envs) == 0 {
		return RetireListEnvironmentsNone, nil
	}
	for _, e := range envs {
		f.Continuation.Envs = append(f.Continuation.Envs, mrtr.Option{Value: e, Title: e})
	}
	return RetireListEnvironmentsSome, nil
}

func (h *RetireImpl) RetireEnvironment(ctx context.Context, f *RetireFlow) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	envs := h.team(f.Args.Team)
	i := slices.Index(envs, f.Target.Env)
	if i < 0 {
		return mrtr.Reject("%s has no environment %s", f.Args.Team, f.Target.Env)
	}
	h.envs[f.Args.Team] = slices.Delete(slices.Clone(envs), i, i+1)
	h.retired++
	return nil
}
