package onboarding

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/onboarding.mrtr.yaml

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ProvisionWorkspaceImpl implements ProvisionWorkspaceHandler on the domain
// store: the team's seat budget is looked up, the chosen plan priced
// against it, and the workspace created once the user confirmed the price.
//
// Access rule: a team that lists members may be provisioned only by them; a
// team without (the seeded demo-team) by anyone, anonymous callers
// included.
type ProvisionWorkspaceImpl struct {
	Data domain.Store
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

var _ ProvisionWorkspaceHandler = (*ProvisionWorkspaceImpl)(nil)

const provisionTool = "provision_workspace"

// Monthly price of one seat, in cents, by tier.
var seatPriceCents = map[ProvisionWorkspaceTier]int64{
	ProvisionWorkspaceTierStarter:    600,
	ProvisionWorkspaceTierBusiness:   1500,
	ProvisionWorkspaceTierEnterprise: 3900,
}

// starterMaxSeats is the size limit of the starter tier.
const starterMaxSeats = 10

func (h *ProvisionWorkspaceImpl) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Authorize applies the access rule on every round. An unknown team is left
// to the lookup check.
func (h *ProvisionWorkspaceImpl) Authorize(ctx context.Context, f *ProvisionWorkspaceFlow) error {
	t, ok, err := domain.Load[domain.Team](ctx, h.Data, domain.TeamKey(f.Args.Team))
	if err != nil || !ok {
		return err
	}
	if !domain.Allowed(f.Call.Principal, t.Members) {
		return mrtr.Forbidden("only members of team %s may provision its workspace", t.Slug)
	}
	return nil
}

// TeamCanProvision: the team exists, has no workspace yet, and has a seat
// budget, which bounds the plan asked next.
func (h *ProvisionWorkspaceImpl) TeamCanProvision(ctx context.Context, f *ProvisionWorkspaceFlow) error {
	t, ok, err := domain.Load[domain.Team](ctx, h.Data, domain.TeamKey(f.Args.Team))
	switch {
	case err != nil:
		return err
	case !ok:
		return mrtr.Reject("there is no team %s", f.Args.Team)
	case t.WorkspaceID != "":
		return mrtr.Reject("team %s already has workspace %s", t.Slug, t.WorkspaceID)
	case t.MaxSeats < 1:
		return mrtr.Reject("team %s has no seat budget; ask finance for one first", t.Slug)
	}
	f.Continuation.MaxSeats = min(t.MaxSeats, 1000)
	return nil
}

// QuotePlan prices the chosen plan: the seats must fit the budget found in
// round 1 and the tier's own limit.
func (h *ProvisionWorkspaceImpl) QuotePlan(ctx context.Context, f *ProvisionWorkspaceFlow) error {
	p := f.Plan
	if p.Seats > f.Continuation.MaxSeats {
		return mrtr.Reject("team %s may have at most %d seats; %d do not fit its budget", f.Args.Team, f.Continuation.MaxSeats, p.Seats)
	}
	if p.Tier == ProvisionWorkspaceTierStarter && p.Seats > starterMaxSeats {
		return mrtr.Reject("the starter plan has at most %d seats; choose business for %d", starterMaxSeats, p.Seats)
	}
	price, ok := seatPriceCents[p.Tier]
	if !ok {
		return mrtr.Reject("plan %s is not sold", p.Tier)
	}
	f.Continuation.MonthlyCents = price * p.Seats
	return nil
}

// CreateWorkspace creates the workspace and assigns it to the team in one
// counted change (effects:provision_workspace:<team>). The round record
// makes it run once per workflow; a second workflow for the same team is
// refused because the team has a workspace by then, and a retry that finds
// the workspace created by this very workflow takes its id.
func (h *ProvisionWorkspaceImpl) CreateWorkspace(ctx context.Context, f *ProvisionWorkspaceFlow) error {
	team := f.Args.Team
	id, err := newWorkspaceID()
	if err != nil {
		return err
	}
	regions := make([]string, len(f.Placement.Regions))
	for i, r := range f.Placement.Regions {
		regions[i] = string(r)
	}
	ws := domain.Workspace{
		ID: id, Team: team, Tier: string(f.Plan.Tier), Seats: f.Plan.Seats, Regions: regions,
		MonthlyCents: f.Continuation.MonthlyCents, CreatedAt: h.now().UTC(),
	}
	if f.Welcome != nil {
		ws.Welcome = f.Welcome.Text
	}
	// The workspace record first: the team never points at a workspace that
	// does not exist (a refused workflow leaves an unreferenced record).
	if err := domain.Save(ctx, h.Data, domain.WorkspaceKey(id), ws); err != nil {
		return err
	}
	err = domain.Update(ctx, h.Data, domain.TeamKey(team), domain.EffectKey(provisionTool, team), func(t *domain.Team) error {
		if t.WorkspaceID != "" {
			if t.CreatedBy == f.Call.WorkflowID {
				id = t.WorkspaceID
				return domain.ErrUnchanged
			}
			return mrtr.Reject("team %s got workspace %s meanwhile; nothing was created", team, t.WorkspaceID)
		}
		t.WorkspaceID, t.CreatedBy = id, f.Call.WorkflowID
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return mrtr.Reject("team %s no longer exists", team)
	}
	if err != nil {
		return err
	}
	f.Continuation.WorkspaceID = id
	return nil
}

func newWorkspaceID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "ws_" + hex.EncodeToString(b[:]), nil
}
