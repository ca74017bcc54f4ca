package onboarding

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func team(name string) ProvisionWorkspaceArgs { return ProvisionWorkspaceArgs{Team: name} }

func plan(tier ProvisionWorkspaceTier, seats int64) ProvisionWorkspacePlanAnswer {
	return ProvisionWorkspacePlanAnswer{Tier: tier, Seats: seats}
}

// placement answers the second round: two regions, a welcome note, the
// projects to attach.
var placement = []mrtrtest.Answer{
	ProvisionWorkspacePlacementAnswer{Regions: []ProvisionWorkspaceRegions{ProvisionWorkspaceRegionsEuWest, ProvisionWorkspaceRegionsUsEast}},
	mrtrtest.Respond("welcome", mrtrtest.Text("Welcome aboard! Your workspace is ready.")),
	mrtrtest.Respond("projects", mrtrtest.RootsOf("file:///src/app")),
}

// TestProvisionWorkspaceRealMatrix runs the MRTR matrix against the real
// handler on team payments-core, whose workspace only its members alice
// and bob may provision (mallory is refused on every round).
func TestProvisionWorkspaceRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	mrtrtest.RunMatrix(t, NewProvisionWorkspaceProgram(&ProvisionWorkspaceImpl{Data: data}), mrtrtest.Fixtures{
		Args:    team("payments-core"),
		Answers: mrtrtest.Answers(append([]mrtrtest.Answer{plan(ProvisionWorkspaceTierBusiness, 4)}, placement...)...),
		Invalid: map[string]mcp.InputResponse{
			"plan":      mrtrtest.Accept(map[string]any{"tier": "platinum", "seats": 4}),
			"placement": mrtrtest.Accept(map[string]any{"regions": []any{}}),
		},
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    team("platform"),
		Effects:      data.Effects(provisionTool, "payments-core"),
		Break:        data.BreakWrites,
	}, data.Harness(t))
}

// provision drives a workflow through its four rounds: the plan, the
// placement, the price confirmed. It returns the driver at the end, or
// where the workflow ended earlier.
func provision(t *testing.T, h *mrtrtest.Harness[*ProvisionWorkspaceFlow], name string, p ProvisionWorkspacePlanAnswer) *mrtrtest.Driver[*ProvisionWorkspaceFlow] {
	t.Helper()
	d := DriveProvisionWorkspace(t, h, team(name))
	for _, next := range []func(){
		func() { d.WantAsks("plan").Answer(p) },
		func() { d.WantAsks("placement", "projects", "welcome").Answer(placement...) },
		func() { d.WantAsks("confirm").Confirm() },
	} {
		if !d.Reply().NeedsInput() {
			break
		}
		next()
	}
	return d
}

func TestProvisionWorkspaceCreates(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewProvisionWorkspaceProgram(&ProvisionWorkspaceImpl{Data: data}))
	h.Principal = "bob"
	d := DriveProvisionWorkspace(t, h, team("payments-core")).
		WantQuestion("plan", "Team payments-core may have up to").
		Answer(plan(ProvisionWorkspaceTierEnterprise, 20)).
		WantQuestion("placement", "team payments-core's enterprise workspace").
		Answer(placement...).
		WantQuestion("confirm", "on enterprise with 20 seats").
		Confirm().
		WantEnd(mrtr.OutcomeSuccess, "Welcome aboard!")
	text := d.Reply().Final.Text
	tm, _, _ := domain.Load[domain.Team](ctx, data, domain.TeamKey("payments-core"))
	ws, ok, _ := domain.Load[domain.Workspace](ctx, data, domain.WorkspaceKey(tm.WorkspaceID))
	if !ok || !strings.Contains(text, tm.WorkspaceID) {
		t.Fatalf("team workspace %q (found: %v), final text %q: want the workspace named in the result", tm.WorkspaceID, ok, text)
	}
	if ws.Tier != "enterprise" || ws.Seats != 20 || ws.MonthlyCents != 20*3900 || !slices.Equal(ws.Regions, []string{"eu-west", "us-east"}) {
		t.Fatalf("workspace %s: %d %s seats for %d cents in %v", ws.ID, ws.Seats, ws.Tier, ws.MonthlyCents, ws.Regions)
	}
	if n := data.Effects(provisionTool, "payments-core")(); n != 1 {
		t.Fatalf("created %d times", n)
	}
	// A second workflow is refused at the lookup.
	provision(t, h, "payments-core", plan(ProvisionWorkspaceTierStarter, 2)).WantEnd(mrtr.OutcomeRejected, "already has workspace")
}

// TestProvisionWorkspaceAbandoned: the price refused, nothing is created.
func TestProvisionWorkspaceAbandoned(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewProvisionWorkspaceProgram(&ProvisionWorkspaceImpl{Data: data}))
	DriveProvisionWorkspace(t, h, team("payments-core")).
		Answer(plan(ProvisionWorkspaceTierBusiness, 4)).Answer(placement...).Refuse().WantEnd(mrtr.OutcomeCancelled, "")
	if n := data.Effects(provisionTool, "payments-core")(); n != 0 {
		t.Fatalf("created %d times", n)
	}
}

func TestProvisionWorkspaceRefusals(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewProvisionWorkspaceProgram(&ProvisionWorkspaceImpl{Data: data}))
	for _, c := range []struct {
		principal, team string
		tier            ProvisionWorkspaceTier
		seats           int64
		want            mrtr.Outcome
		text            string
	}{
		{"alice", "demo-team", ProvisionWorkspaceTierBusiness, 11, mrtr.OutcomeRejected, "at most 10 seats; 11 do not fit"},
		{"alice", "payments-core", ProvisionWorkspaceTierStarter, 12, mrtr.OutcomeRejected, "starter plan has at most 10 seats"},
		{"alice", "platform", ProvisionWorkspaceTierBusiness, 5, mrtr.OutcomeRejected, "already has workspace ws_platform"},
		{"alice", "interns", ProvisionWorkspaceTierBusiness, 5, mrtr.OutcomeRejected, "no seat budget"},
		{"alice", "nobody-here", ProvisionWorkspaceTierBusiness, 5, mrtr.OutcomeRejected, "there is no team nobody-here"},
		{"", "payments-core", ProvisionWorkspaceTierBusiness, 5, mrtr.OutcomeUnauthorized, "only members of team payments-core"},
		{"mallory", "payments-core", ProvisionWorkspaceTierBusiness, 5, mrtr.OutcomeUnauthorized, "only members"},
	} {
		t.Run(fmt.Sprintf("%s provisioning %s with %d %s seats", c.principal, c.team, c.seats, c.tier), func(t *testing.T) {
			h.Principal = c.principal
			provision(t, h, c.team, plan(c.tier, c.seats)).WantEnd(c.want, c.text)
		})
	}
	for _, team := range []string{"demo-team", "payments-core"} {
		if n := data.Effects(provisionTool, team)(); n != 0 {
			t.Errorf("%s: %d workspaces created by refused workflows", team, n)
		}
	}
}
