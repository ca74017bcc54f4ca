package releases

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func plan(services ...any) mcp.InputResponseMap {
	return mcp.InputResponseMap{"plan": mrtrtest.Accept(map[string]any{"services": services, "note": "weekly train"})}
}

// typed answers the typed confirmation: the approver types the
// environment's name.
func typed(text string) mcp.InputResponseMap {
	return mcp.InputResponseMap{"deploy": mrtrtest.Accept(map[string]any{"confirm": text})}
}

// TestApproveDeploymentRealMatrix runs the MRTR matrix against the real
// handler on production, which only alice and bob may deploy to (mallory
// is refused on every round): the fixture workflow picks the billing build
// among the three production lacks; a build production already runs is not
// among the options, so picking it is invalid.
func TestApproveDeploymentRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	mrtrtest.RunMatrix(t, NewApproveDeploymentProgram(&ApproveDeploymentImpl{Data: data}), mrtrtest.Fixtures{
		Args:         map[string]any{"environment": "production"},
		Answers:      map[string]mcp.InputResponse{"plan": plan("billing@1.5.0")["plan"]},
		Invalid:      map[string]mcp.InputResponse{"plan": plan("checkout@3.2.1")["plan"]},
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    map[string]any{"environment": "staging"},
		Effects:      data.Effects(deployTool, "production"),
		Break:        data.BreakWrites,
	}, data.Harness(t))
}

// offered returns the const=title pairs of the multi-select services.
func offered(t *testing.T, r *mrtr.Reply) []string {
	t.Helper()
	raw, err := json.Marshal(r.InputRequests["plan"].(*mcp.ElicitParams).RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Services struct {
				Items struct {
					AnyOf []struct{ Const, Title string } `json:"anyOf"`
				} `json:"items"`
			} `json:"services"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range s.Properties.Services.Items.AnyOf {
		out = append(out, o.Const+"="+o.Title)
	}
	return out
}

func TestApproveDeploymentPicksChangedServices(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewApproveDeploymentProgram(&ApproveDeploymentImpl{Data: data}))
	args := map[string]any{"environment": "production"}
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	want := "billing@1.5.0=billing 1.4.2 → 1.5.0 ledger@0.9.1=ledger (new) → 0.9.1 search@2.1.0=search 2.0.9 → 2.1.0"
	if got := strings.Join(offered(t, first), " "); got != want {
		t.Fatalf("offered %q, want %q (checkout is up to date)", got, want)
	}
	if q := first.InputRequests["plan"].(*mcp.ElicitParams).Message; !strings.Contains(q, "since rel-17 of production") {
		t.Fatalf("the question does not name the last release: %q", q)
	}

	// The whole catalogue is not on offer: checkout runs its latest build.
	again, err := h.Call(ctx, args, first.RequestState, plan("search@2.1.0", "checkout@3.2.1"))
	if err != nil || !again.NeedsInput() || !strings.Contains(again.InputRequests["plan"].(*mcp.ElicitParams).Message, `services[]: "checkout@3.2.1" is not one of the options offered (billing@1.5.0, ledger@0.9.1, search@2.1.0)`) {
		t.Fatalf("a build not offered: %+v, %v", again, err)
	}

	// Picked in any order, kept in the order offered.
	confirm, err := h.Call(ctx, args, again.RequestState, plan("search@2.1.0", "billing@1.5.0", "search@2.1.0"))
	if err != nil || !confirm.NeedsInput() || confirm.InputRequests["deploy"] == nil {
		t.Fatalf("round 2: %+v, %v", confirm, err)
	}
	// The question lists the builds by the titles they were offered with,
	// shows the note, and says what to type; so does the form's field.
	gate := confirm.InputRequests["deploy"].(*mcp.ElicitParams)
	if q := gate.Message; q != "Deploy billing 1.4.2 → 1.5.0, search 2.0.9 → 2.1.0 to production? Note: weekly train Type production to deploy." {
		t.Fatalf("confirmation %q", q)
	}
	if schema, _ := json.Marshal(gate.RequestedSchema); !strings.Contains(string(schema), `"title":"Type “production” to confirm"`) || !strings.Contains(string(schema), `"type":"string"`) {
		t.Fatalf("confirmation form %s", schema)
	}
	// A yes, or the wrong text, is not a confirmation: asked again saying
	// so, and nothing is deployed.
	state := confirm.RequestState
	for _, wrong := range []mcp.InputResponseMap{typed("Production"), {"deploy": mrtrtest.Accept(map[string]any{"confirm": true})}} {
		again, err := h.Call(ctx, args, state, wrong)
		if err != nil || !again.NeedsInput() || again.InputRequests["deploy"] == nil {
			t.Fatalf("%v: %+v, %v", wrong["deploy"], again, err)
		}
		if q := again.InputRequests["deploy"].(*mcp.ElicitParams).Message; !strings.Contains(q, "production") || !strings.Contains(q, "Please correct") {
			t.Fatalf("asked again with %q", q)
		}
		state = again.RequestState
	}
	if n := data.Effects(deployTool, "production")(); n != 0 {
		t.Fatalf("deployed %d times before the confirmation", n)
	}
	done, err := h.Call(ctx, args, state, typed(" production\n"))
	if err != nil || done.NeedsInput() || done.Final.Outcome != mrtr.OutcomeSuccess || done.Final.Text != "Deployed billing@1.5.0, search@2.1.0 to production as rel-18." {
		t.Fatalf("round 3: %+v, %v", done, err)
	}
	e, _, _ := domain.Load[domain.Environment](ctx, data, domain.EnvKey("production"))
	if e.Running["billing"] != "1.5.0" || e.Running["search"] != "2.1.0" || e.Running["ledger"] != "" || e.Release != 18 {
		t.Fatalf("production after the release: %+v", e)
	}
	if len(e.Log) != 1 || e.Log[0] != "rel-18: billing@1.5.0, search@2.1.0 by alice (weekly train)" {
		t.Fatalf("release log %q", e.Log)
	}
	// The retried final round replays the release; nothing is deployed twice.
	replay, err := h.Call(ctx, args, state, typed(" production\n"))
	if err != nil || replay.Final == nil || replay.Final.Text != done.Final.Text {
		t.Fatalf("replay: %+v, %v", replay, err)
	}
	if n := data.Effects(deployTool, "production")(); n != 1 {
		t.Fatalf("deployed %d times", n)
	}
	// Now only ledger is offered.
	next, err := h.Call(ctx, args, "", nil)
	if err != nil || !next.NeedsInput() || strings.Join(offered(t, next), " ") != "ledger@0.9.1=ledger (new) → 0.9.1" {
		t.Fatalf("after the release: %+v, %v", next, err)
	}
}

// Typing the wrong text three times is refusing: the workflow ends as
// declined, nothing deployed; a fourth text is not asked for.
func TestApproveDeploymentTypedMismatches(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewApproveDeploymentProgram(&ApproveDeploymentImpl{Data: data}))
	args := map[string]any{"environment": "staging"}
	h.Principal = ""
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	r, err := h.Call(ctx, args, first.RequestState, plan("search@2.1.0"))
	for i, text := range []string{"stagin", "STAGING", "production"} {
		if err != nil || !r.NeedsInput() || r.InputRequests["deploy"] == nil {
			t.Fatalf("before text %d: %+v, %v", i+1, r, err)
		}
		r, err = h.Call(ctx, args, r.RequestState, typed(text))
		if i < 2 {
			left := []string{"2 attempts left", "1 attempt left"}[i]
			if err != nil || r.InputRequests["deploy"] == nil || !strings.Contains(r.InputRequests["deploy"].(*mcp.ElicitParams).Message, "that is not “staging”; type it exactly as shown ("+left+")") {
				t.Fatalf("text %d: %+v, %v", i+1, r, err)
			}
		}
	}
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeCancelled || r.Final.Text != "Nothing was deployed to staging." {
		t.Fatalf("after three mismatches: %+v, %v", r, err)
	}
	if n := data.Effects(deployTool, "staging")(); n != 0 {
		t.Fatalf("deployed %d times", n)
	}
}

// A build that lands while the approver decides stops the deployment: what
// was approved is no longer the latest.
func TestApproveDeploymentNewBuildWhileConfirming(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewApproveDeploymentProgram(&ApproveDeploymentImpl{Data: data}))
	args := map[string]any{"environment": "staging"} // no approvers: anyone
	h.Principal = ""
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() || strings.Join(offered(t, first), " ") != "search@2.1.0=search 2.0.9 → 2.1.0" {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	confirm, err := h.Call(ctx, args, first.RequestState, plan("search@2.1.0"))
	if err != nil || confirm.InputRequests["deploy"] == nil {
		t.Fatalf("round 2: %+v, %v", confirm, err)
	}
	if err := domain.Save(ctx, data, domain.ServiceKey("search"), domain.Service{Name: "search", Version: "2.1.1"}); err != nil {
		t.Fatal(err)
	}
	r, err := h.Call(ctx, args, confirm.RequestState, typed("staging"))
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeFailed || !strings.Contains(r.Final.Text, "changed while waiting") {
		t.Fatalf("round 3: %+v, %v", r, err)
	}
	if n := data.Effects(deployTool, "staging")(); n != 0 {
		t.Fatalf("deployed %d times", n)
	}
}

// An environment that runs every latest build has nothing to offer: the
// workflow ends at once instead of showing an empty form.
func TestApproveDeploymentUpToDate(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	if err := domain.Update(ctx, data, domain.EnvKey("staging"), "", func(e *domain.Environment) error {
		e.Running["search"] = "2.1.0"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h := mrtrtest.New(t, NewApproveDeploymentProgram(&ApproveDeploymentImpl{Data: data}))
	r, err := h.Call(ctx, map[string]any{"environment": "staging"}, "", nil)
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeSuccess || r.Final.Text != "Nothing to deploy to staging; every service runs its latest build since rel-41." {
		t.Fatalf("up to date: %+v, %v", r, err)
	}
}
