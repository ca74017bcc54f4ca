package releases

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/releases.mrtr.yaml

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ApproveDeploymentImpl implements ApproveDeploymentHandler on the domain
// store: the services (index:services, each with its latest build) against
// what an environment runs (env:<name>).
//
// Access rule: an environment with approvers (production: alice and bob)
// may be deployed to by them only; one without (staging) by anyone.
type ApproveDeploymentImpl struct {
	Data domain.Store
}

var _ ApproveDeploymentHandler = (*ApproveDeploymentImpl)(nil)

const deployTool = "approve_deployment"

func (h *ApproveDeploymentImpl) env(ctx context.Context, f *ApproveDeploymentFlow) (domain.Environment, error) {
	name := string(f.Args.Environment)
	e, ok, err := domain.Load[domain.Environment](ctx, h.Data, domain.EnvKey(name))
	if err != nil {
		return e, err
	}
	if !ok {
		return e, mrtr.Reject("environment %s does not exist", name)
	}
	return e, nil
}

// Authorize applies the access rule on every round: an approver removed
// while the user was deciding can no longer deploy.
func (h *ApproveDeploymentImpl) Authorize(ctx context.Context, f *ApproveDeploymentFlow) error {
	e, ok, err := domain.Load[domain.Environment](ctx, h.Data, domain.EnvKey(string(f.Args.Environment)))
	if err != nil || !ok {
		return err // a missing environment is the check's to refuse
	}
	if !domain.Allowed(f.Call.Principal, e.Approvers) {
		return mrtr.Forbidden("only the approvers of %s may deploy to it", e.Name)
	}
	return nil
}

// build is a service at a version: what an option's value names
// ("billing@1.5.0"), so that the approver picks builds, not services.
type build struct{ service, version string }

func (b build) String() string { return b.service + "@" + b.version }

func parseBuild(v string) (build, error) {
	s, ver, ok := strings.Cut(v, "@")
	if !ok {
		return build{}, fmt.Errorf("releases: %q is not service@version", v)
	}
	return build{s, ver}, nil
}

// pending lists the latest build of every service the environment does not
// run, in index order.
func (h *ApproveDeploymentImpl) pending(ctx context.Context, e domain.Environment) ([]build, error) {
	names, err := domain.Index(ctx, h.Data, domain.ServiceIndexKey)
	if err != nil {
		return nil, err
	}
	var out []build
	for _, n := range names {
		s, ok, err := domain.Load[domain.Service](ctx, h.Data, domain.ServiceKey(n))
		if err != nil {
			return nil, err
		}
		if ok && e.Running[n] != s.Version {
			out = append(out, build{n, s.Version})
		}
	}
	return out, nil
}

// maxChanges is the continuation's maxItems for changes.
const maxChanges = 12

// ChangedServices offers the builds the environment does not run yet,
// titled with the version it runs now ("billing 1.4.2 → 1.5.0").
func (h *ApproveDeploymentImpl) ChangedServices(ctx context.Context, f *ApproveDeploymentFlow) (ApproveDeploymentChangedServicesOutcome, error) {
	e, err := h.env(ctx, f)
	if err != nil {
		return 0, err
	}
	f.Continuation.LastRelease = domain.ReleaseName(e.Release)
	builds, err := h.pending(ctx, e)
	if err != nil {
		return 0, err
	}
	if len(builds) == 0 {
		return ApproveDeploymentChangedServicesUpToDate, nil
	}
	if len(builds) > maxChanges {
		return 0, mrtr.Reject("%d services changed since %s; deploy them from the release pipeline", len(builds), f.Continuation.LastRelease)
	}
	for _, b := range builds {
		from := e.Running[b.service]
		if from == "" {
			from = "(new)"
		}
		f.Continuation.Changes = append(f.Continuation.Changes, mrtr.Option{Value: b.String(), Title: fmt.Sprintf("%s %s → %s", b.service, from, b.version)})
	}
	return ApproveDeploymentChangedServicesChanges, nil
}

// picked returns the builds the approver chose (the generated code has
// checked each is one of the options offered).
func picked(f *ApproveDeploymentFlow) ([]build, error) {
	var out []build
	for _, v := range f.Plan.Services {
		b, err := parseBuild(v)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// BuildsStillPending runs after the confirmation: the approver approved
// these builds, so a newer build of one of them, or a release that
// deployed one meanwhile, means starting again.
func (h *ApproveDeploymentImpl) BuildsStillPending(ctx context.Context, f *ApproveDeploymentFlow) (ApproveDeploymentBuildsStillPendingOutcome, error) {
	e, err := h.env(ctx, f)
	if err != nil {
		return 0, err
	}
	builds, err := picked(f)
	if err != nil {
		return 0, err
	}
	now, err := h.pending(ctx, e)
	if err != nil {
		return 0, err
	}
	for _, b := range builds {
		if !slices.Contains(now, b) {
			return ApproveDeploymentBuildsStillPendingMoved, nil
		}
	}
	return ApproveDeploymentBuildsStillPendingPending, nil
}

// DeployBuilds makes the release: the environment runs the picked builds,
// its release count goes up, and the note goes to its log, all in one
// change counted in effects:approve_deployment:<environment>. The engine
// runs it once per workflow round; a retry that finds this workflow's
// release made only reads its name back.
func (h *ApproveDeploymentImpl) DeployBuilds(ctx context.Context, f *ApproveDeploymentFlow) error {
	builds, err := picked(f)
	if err != nil {
		return err
	}
	name := string(f.Args.Environment)
	var release int
	err = domain.Update(ctx, h.Data, domain.EnvKey(name), domain.EffectKey(deployTool, name), func(e *domain.Environment) error {
		if e.ReleasedBy == f.Call.WorkflowID {
			release = e.Release
			return domain.ErrUnchanged
		}
		for _, b := range builds {
			if e.Running[b.service] == b.version {
				return mrtr.Reject("%s was deployed to %s meanwhile; nothing was deployed", b, name)
			}
		}
		if e.Running == nil {
			e.Running = map[string]string{}
		}
		for _, b := range builds {
			e.Running[b.service] = b.version
		}
		e.Release++
		e.ReleasedBy = f.Call.WorkflowID
		entry := domain.ReleaseName(e.Release) + ": " + strings.Join(f.Plan.Services, ", ") + " by " + or(f.Call.Principal, "anonymous")
		if f.Plan.Note != nil && *f.Plan.Note != "" {
			entry += " (" + *f.Plan.Note + ")"
		}
		e.Log = append(e.Log, entry)
		release = e.Release
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return mrtr.Reject("environment %s no longer exists", name)
	}
	if err != nil {
		return err
	}
	f.Continuation.ReleaseID = domain.ReleaseName(release)
	return nil
}

func or(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
