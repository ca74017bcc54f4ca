package deployments

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/deployments.mrtr.yaml

import (
	"context"
	"errors"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// DeployReleaseImpl implements DeployReleaseHandler on the domain store's
// components (the ones roll_out_release rolls out too). The canary and the
// promotion each change the component once per release (operations
// canary-{service}-{version} and promote-{service}-{version}); each change
// counts under domain.Effects(ctx, data, "deploy_release", "canary:<service>")
// (and "promote:", "rollback:"), which is how the tests see an effect run
// once. The tool runs as a task when the client supports tasks (spec: task):
// the canary starts it, and the approval in between is asked through the
// task.
type DeployReleaseImpl struct {
	Data domain.Store
	// Delay is how long the canary and the promotion take (the time a real
	// deployment waits for health checks); they stop early, and fail, when
	// their context ends (tasks/cancel, the task's timeout).
	Delay time.Duration
}

var _ DeployReleaseHandler = (*DeployReleaseImpl)(nil)

const deployTool = "deploy_release"

// Authorize: a component that names deployers may be deployed only by
// them; one without by anyone.
func (h *DeployReleaseImpl) Authorize(ctx context.Context, f *DeployReleaseFlow) error {
	c, ok, err := domain.Load[domain.Component](ctx, h.Data, domain.ComponentKey(f.Args.Service))
	if err != nil || !ok {
		return err
	}
	if !domain.Allowed(f.Call.Principal, c.Deployers) {
		return mrtr.Forbidden("only the deployers of %s may deploy it", c.Name)
	}
	return nil
}

// InspectService: the service exists and runs another version.
func (h *DeployReleaseImpl) InspectService(ctx context.Context, f *DeployReleaseFlow) error {
	c, ok, err := domain.Load[domain.Component](ctx, h.Data, domain.ComponentKey(f.Args.Service))
	switch {
	case err != nil:
		return err
	case !ok:
		return mrtr.Reject("unknown service %s", f.Args.Service)
	case c.Version == f.Args.Version:
		return mrtr.Reject("%s %s is already running", c.Name, c.Version)
	}
	f.Continuation.Running = c.Version
	return nil
}

func (h *DeployReleaseImpl) wait(ctx context.Context) error {
	if h.Delay <= 0 {
		return nil
	}
	t := time.NewTimer(h.Delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// change applies fn to the service's component, counting the change under
// what:<service>; a change already made (a retry after the lease) is not
// made or counted again.
func (h *DeployReleaseImpl) change(ctx context.Context, f *DeployReleaseFlow, what string, fn func(c *domain.Component) bool) error {
	err := domain.Update(ctx, h.Data, domain.ComponentKey(f.Args.Service), domain.EffectKey(deployTool, what+":"+f.Args.Service), func(c *domain.Component) error {
		if !fn(c) {
			return domain.ErrUnchanged
		}
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return mrtr.Reject("service %s no longer exists", f.Args.Service)
	}
	return err
}

// DeployCanary puts the version on the canary (the component's Rollout
// names it), then waits for it to be healthy.
func (h *DeployReleaseImpl) DeployCanary(ctx context.Context, f *DeployReleaseFlow) error {
	mark := "canary-" + f.Args.Version
	if err := h.change(ctx, f, "canary", func(c *domain.Component) bool {
		if c.Rollout == mark {
			return false
		}
		c.Rollout = mark
		return true
	}); err != nil {
		return err
	}
	return h.wait(ctx)
}

// PromoteRelease makes the version the one production runs.
func (h *DeployReleaseImpl) PromoteRelease(ctx context.Context, f *DeployReleaseFlow) error {
	if err := h.wait(ctx); err != nil {
		return err
	}
	return h.change(ctx, f, "promote", func(c *domain.Component) bool {
		if c.Version == f.Args.Version {
			return false
		}
		c.Version, c.Rollout = f.Args.Version, ""
		return true
	})
}

// RollbackCanary takes the canary down.
func (h *DeployReleaseImpl) RollbackCanary(ctx context.Context, f *DeployReleaseFlow) error {
	return h.change(ctx, f, "rollback", func(c *domain.Component) bool {
		if c.Rollout != "canary-"+f.Args.Version {
			return false
		}
		c.Rollout = ""
		return true
	})
}
