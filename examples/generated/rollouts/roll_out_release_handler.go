package rollouts

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/rollouts.mrtr.yaml

import (
	"context"
	"errors"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RollOutReleaseImpl implements RollOutReleaseHandler on the domain store.
// A change ticket that does not cover the release (unknown, not approved,
// for another component or version) is asked for again, saying why; the
// spec bounds that at three answers. The component's risk, set by the
// first check, decides whether the user chooses a rollout (a value branch
// in the spec, no method here). After the confirmation the ticket and the
// component are rechecked, then the rollout starts once per release
// (operation rollout-{component}-{version}).
//
// Access rule: a component that names deployers may be rolled out only by
// them; one without (the seeded sandbox components) by anyone, anonymous
// callers included.
type RollOutReleaseImpl struct {
	Data domain.Store
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

var _ RollOutReleaseHandler = (*RollOutReleaseImpl)(nil)

const rolloutTool = "roll_out_release"

func (h *RollOutReleaseImpl) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Authorize applies the access rule on every round. An unknown component
// is left to the inspect check.
func (h *RollOutReleaseImpl) Authorize(ctx context.Context, f *RollOutReleaseFlow) error {
	c, ok, err := domain.Load[domain.Component](ctx, h.Data, domain.ComponentKey(f.Args.Component))
	if err != nil || !ok {
		return err
	}
	if !domain.Allowed(f.Call.Principal, c.Deployers) {
		return mrtr.Forbidden("only the deployers of %s may roll it out", c.Name)
	}
	return nil
}

// InspectRelease: the component exists and runs another version. What runs
// now and the component's risk class are set (sets: in the spec): the
// question shows the one, the spec branches on the other.
func (h *RollOutReleaseImpl) InspectRelease(ctx context.Context, f *RollOutReleaseFlow) error {
	c, err := h.component(ctx, f)
	if err != nil {
		return err
	}
	risk := RollOutReleaseRisk(c.Risk)
	if risk != RollOutReleaseRiskLow && risk != RollOutReleaseRiskHigh {
		return errors.New("component " + c.Name + " has no risk class") // the catalogue is broken: a dependency failure
	}
	f.Continuation.Running, f.Continuation.Risk = c.Version, risk
	return nil
}

// TicketForRelease refuses, as it is answered, a ticket that does not exist
// or is for another component or version: it reads the release from the
// flow (reads: in the spec), and the user sees why and answers again. Only
// a store that cannot be read is a dependency failure, never shown.
func (h *RollOutReleaseImpl) TicketForRelease(ctx context.Context, value string, in RollOutReleaseTicketForReleaseReads) error {
	t, ok, err := domain.Load[domain.ChangeTicket](ctx, h.Data, domain.ChangeKey(value))
	switch {
	case err != nil:
		return err
	case !ok:
		return mrtr.Invalid("there is no change ticket %s", value)
	}
	if why := t.ForRelease(in.Component, in.Version); why != "" {
		return mrtr.Invalid("ticket %s %s; give the ticket of %s %s", value, why, in.Component, in.Version)
	}
	return nil
}

// TicketCoversRelease asks again for a ticket that does not approve this
// release (the validator saw that it is for it), saying why: the user can
// pick another.
func (h *RollOutReleaseImpl) TicketCoversRelease(ctx context.Context, f *RollOutReleaseFlow) error {
	id := f.Ticket.ID
	t, ok, err := domain.Load[domain.ChangeTicket](ctx, h.Data, domain.ChangeKey(id))
	switch {
	case err != nil:
		return err
	case !ok:
		return mrtr.AskAgain("there is no change ticket %s; give the ticket that approves %s %s", id, f.Args.Component, f.Args.Version)
	}
	if why := t.Covers(f.Args.Component, f.Args.Version); why != "" {
		return mrtr.AskAgain("ticket %s %s; give a ticket that approves %s %s", id, why, f.Args.Component, f.Args.Version)
	}
	return nil
}

// ReleaseStillApproved runs after the confirmation: the ticket may have
// been withdrawn, or the version rolled out by someone else, meanwhile.
func (h *RollOutReleaseImpl) ReleaseStillApproved(ctx context.Context, f *RollOutReleaseFlow) error {
	if _, err := h.component(ctx, f); err != nil {
		return err
	}
	t, ok, err := domain.Load[domain.ChangeTicket](ctx, h.Data, domain.ChangeKey(f.Ticket.ID))
	if err != nil {
		return err
	}
	if why := t.Covers(f.Args.Component, f.Args.Version); !ok || why != "" {
		return mrtr.Reject("ticket %s no longer approves %s %s; nothing was rolled out", f.Ticket.ID, f.Args.Component, f.Args.Version)
	}
	return nil
}

// StartRollout starts the rollout: the component moves to the new version
// with the rollout's id in one change, counted in
// effects:roll_out_release:<component>, and the rollout is recorded with
// its strategy. The id is the workflow's, so a retry of a run that died
// after the change finds it made and does not roll out again.
func (h *RollOutReleaseImpl) StartRollout(ctx context.Context, f *RollOutReleaseFlow) error {
	name, id := f.Args.Component, "ro_"+f.Call.WorkflowID
	err := domain.Update(ctx, h.Data, domain.ComponentKey(name), domain.EffectKey(rolloutTool, name), func(c *domain.Component) error {
		if c.Rollout == id {
			return domain.ErrUnchanged
		}
		if c.Version == f.Args.Version {
			return mrtr.Reject("%s %s was rolled out meanwhile; nothing was started", name, f.Args.Version)
		}
		c.Version, c.Rollout = f.Args.Version, id
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return mrtr.Reject("component %s no longer exists", name)
	}
	if err != nil {
		return err
	}
	r := domain.Rollout{ID: id, Component: name, Version: f.Args.Version, Ticket: f.Ticket.ID, Strategy: "rolling",
		Workflow: f.Call.WorkflowID, At: h.now().UTC()}
	if f.Rollout != nil && f.Rollout.Strategy == RollOutReleaseStrategyCanary && f.Canary != nil {
		r.Strategy, r.CanaryPercent = "canary", f.Canary.Percent
	}
	f.Continuation.RolloutID = id
	return domain.Save(ctx, h.Data, domain.RolloutKey(id), r)
}

// component loads the component, which must exist and not run the version
// already.
func (h *RollOutReleaseImpl) component(ctx context.Context, f *RollOutReleaseFlow) (domain.Component, error) {
	c, ok, err := domain.Load[domain.Component](ctx, h.Data, domain.ComponentKey(f.Args.Component))
	switch {
	case err != nil:
		return c, err
	case !ok:
		return c, mrtr.Reject("unknown component %s", f.Args.Component)
	case c.Version == f.Args.Version:
		return c, mrtr.Reject("%s %s is already running", c.Name, c.Version)
	}
	return c, nil
}
