package onboarding

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func answers(tier string, seats int) map[string]mcp.InputResponse {
	return map[string]mcp.InputResponse{
		"plan":      mrtrtest.Accept(map[string]any{"tier": tier, "seats": seats}),
		"placement": mrtrtest.Accept(map[string]any{"regions": []any{"eu-west", "us-east"}}),
		"welcome":   mrtrtest.Text("Welcome aboard! Your workspace is ready."),
		"projects":  mrtrtest.RootsOf("file:///src/app"),
		"confirm":   mrtrtest.Accept(map[string]any{"confirm": true}),
	}
}

// TestProvisionWorkspaceRealMatrix runs the MRTR matrix against the real
// handler on team payments-core, whose workspace only its members alice
// and bob may provision (mallory is refused on every round).
func TestProvisionWorkspaceRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	mrtrtest.RunMatrix(t, NewProvisionWorkspaceProgram(&ProvisionWorkspaceImpl{Data: data}), mrtrtest.Fixtures{
		Args:    map[string]any{"team": "payments-core"},
		Answers: answers("business", 4),
		Invalid: map[string]mcp.InputResponse{
			"plan":      mrtrtest.Accept(map[string]any{"tier": "platinum", "seats": 4}),
			"placement": mrtrtest.Accept(map[string]any{"regions": []any{}}),
		},
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    map[string]any{"team": "platform"},
		Effects:      data.Effects(provisionTool, "payments-core"),
		Break:        data.BreakWrites,
	}, data.Harness(t))
}

// run drives a workflow to its end with the given answers.
func run(t *testing.T, h *mrtrtest.Harness[*ProvisionWorkspaceFlow], team string, ans map[string]mcp.InputResponse) *mrtrimpl.Final {
	t.Helper()
	ctx := context.Background()
	args := map[string]any{"team": team}
	reply, err := h.Call(ctx, args, "", nil)
	for range 8 {
		if err != nil {
			t.Fatal(err)
		}
		if !reply.NeedsInput() {
			return reply.Final
		}
		send := mcp.InputResponseMap{}
		for k := range reply.InputRequests {
			send[k] = ans[k]
		}
		reply, err = h.Call(ctx, args, reply.RequestState, send)
	}
	t.Fatal("no end after 8 rounds")
	return nil
}

func TestProvisionWorkspaceCreates(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewProvisionWorkspaceProgram(&ProvisionWorkspaceImpl{Data: data}))
	h.Principal = "bob"
	final := run(t, h, "payments-core", answers("enterprise", 20))
	if final.Outcome != mrtr.OutcomeSuccess || !strings.Contains(final.Text, "Welcome aboard!") {
		t.Fatalf("final %+v", final)
	}
	team, _, _ := domain.Load[domain.Team](ctx, data, domain.TeamKey("payments-core"))
	ws, ok, _ := domain.Load[domain.Workspace](ctx, data, domain.WorkspaceKey(team.WorkspaceID))
	if !ok || !strings.Contains(final.Text, team.WorkspaceID) {
		t.Fatalf("team %+v: no workspace, or another id than %q", team, final.Text)
	}
	if ws.Tier != "enterprise" || ws.Seats != 20 || ws.MonthlyCents != 20*3900 || !slices.Equal(ws.Regions, []string{"eu-west", "us-east"}) {
		t.Fatalf("workspace %+v", ws)
	}
	if n := data.Effects(provisionTool, "payments-core")(); n != 1 {
		t.Fatalf("created %d times", n)
	}
	// A second workflow is refused at the lookup.
	if again := run(t, h, "payments-core", answers("starter", 2)); again.Outcome != mrtr.OutcomeRejected || !strings.Contains(again.Text, "already has workspace") {
		t.Fatalf("second workflow: %+v", again)
	}
}

func TestProvisionWorkspaceRefusals(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewProvisionWorkspaceProgram(&ProvisionWorkspaceImpl{Data: data}))
	for _, c := range []struct {
		principal, team, tier string
		seats                 int
		want                  mrtr.Outcome
		text                  string
	}{
		{"alice", "demo-team", "business", 11, mrtr.OutcomeRejected, "at most 10 seats; 11 do not fit"},
		{"alice", "payments-core", "starter", 12, mrtr.OutcomeRejected, "starter plan has at most 10 seats"},
		{"alice", "platform", "business", 5, mrtr.OutcomeRejected, "already has workspace ws_platform"},
		{"alice", "interns", "business", 5, mrtr.OutcomeRejected, "no seat budget"},
		{"alice", "nobody-here", "business", 5, mrtr.OutcomeRejected, "there is no team nobody-here"},
		{"", "payments-core", "business", 5, mrtr.OutcomeUnauthorized, "only members of team payments-core"},
		{"mallory", "payments-core", "business", 5, mrtr.OutcomeUnauthorized, "only members"},
	} {
		h.Principal = c.principal
		final := run(t, h, c.team, answers(c.tier, c.seats))
		if final.Outcome != c.want || !strings.Contains(final.Text, c.text) {
			t.Errorf("%q provisioning %s with %d %s seats: %+v; want %s with %q", c.principal, c.team, c.seats, c.tier, final, c.want, c.text)
		}
	}
	for _, team := range []string{"demo-team", "payments-core"} {
		if n := data.Effects(provisionTool, team)(); n != 0 {
			t.Errorf("%s: %d workspaces created by refused workflows", team, n)
		}
	}
}
