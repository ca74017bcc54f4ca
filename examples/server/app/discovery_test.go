package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// choicesOf returns the const values a form offers for prop: oneOf of a
// single select, items.anyOf of a multi-select, as the client received them.
func choicesOf(t *testing.T, schema any, prop string) []string {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			OneOf []struct{ Const string } `json:"oneOf"`
			Items struct {
				AnyOf []struct{ Const string } `json:"anyOf"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range append(s.Properties[prop].OneOf, s.Properties[prop].Items.AnyOf...) {
		out = append(out, c.Const)
	}
	return out
}

func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// TestServeDiscoveredChoices: over MCP, cancel_subscription offers the
// customers its lookup found and approve_deployment the builds production
// lacks; the client picks from what it was offered.
func TestServeDiscoveredChoices(t *testing.T) {
	s := start(t, "memory:", testRing(t), "choices")
	ctx := context.Background()
	cs := connect(t, s.URL, nil, "")

	args := map[string]any{"name": "Smith"}
	r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cancel_subscription", Arguments: args})
	if err != nil || !r1.NeedsInput() {
		t.Fatalf("cancel_subscription round 1: %+v, %v", r1, err)
	}
	form, ok := r1.InputRequests["choice"].(*mcp.ElicitParams)
	if !ok {
		t.Fatalf("no choice form: %+v", r1.InputRequests)
	}
	if got := strings.Join(choicesOf(t, form.RequestedSchema, "customer"), " "); got != "cus_smith01 cus_smith02 cus_smith03" {
		t.Fatalf("offered %q", got)
	}
	r2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cancel_subscription", Arguments: args, RequestState: r1.RequestState,
		InputResponses: mcp.InputResponseMap{"choice": accept(map[string]any{"customer": "cus_smith01"})}})
	if err != nil || !r2.NeedsInput() || r2.InputRequests["cancel"] == nil {
		t.Fatalf("cancel_subscription round 2: %+v, %v", r2, err)
	}
	r3, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cancel_subscription", Arguments: args, RequestState: r2.RequestState,
		InputResponses: mcp.InputResponseMap{"cancel": accept(map[string]any{"confirm": true})}})
	if err != nil || r3.NeedsInput() || r3.IsError || text(t, r3) != "Cancelled the Pro subscription of Jane Smith (cus_smith01)." {
		t.Fatalf("cancel_subscription round 3: %+v %q, %v", r3, text(t, r3), err)
	}
	if n, _ := domain.Effects(ctx, s.Data, "cancel_subscription", "cus_smith01"); n != 1 {
		t.Fatalf("cancelled %d times", n)
	}

	// production belongs to alice and bob: anonymous is refused.
	env := map[string]any{"environment": "production"}
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "approve_deployment", Arguments: env}); err != nil || !r.IsError {
		t.Fatalf("anonymous on production: %+v, %v", r, err)
	}
	env["environment"] = "staging"
	d1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "approve_deployment", Arguments: env})
	if err != nil || !d1.NeedsInput() {
		t.Fatalf("approve_deployment round 1: %+v, %v", d1, err)
	}
	builds := choicesOf(t, d1.InputRequests["plan"].(*mcp.ElicitParams).RequestedSchema, "services")
	if strings.Join(builds, " ") != "search@2.1.0" {
		t.Fatalf("staging offers %q", builds)
	}
	d2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "approve_deployment", Arguments: env, RequestState: d1.RequestState,
		InputResponses: mcp.InputResponseMap{"plan": accept(map[string]any{"services": []any{builds[0]}})}})
	if err != nil || !d2.NeedsInput() {
		t.Fatalf("approve_deployment round 2: %+v, %v", d2, err)
	}
	// A typed confirmation: a yes is not enough, the approver types the
	// environment's name.
	gate := d2.InputRequests["deploy"].(*mcp.ElicitParams)
	if !strings.Contains(gate.Message, "Type staging to deploy.") {
		t.Fatalf("approve_deployment asks %q", gate.Message)
	}
	yes, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "approve_deployment", Arguments: env, RequestState: d2.RequestState,
		InputResponses: mcp.InputResponseMap{"deploy": accept(map[string]any{"confirm": true})}})
	if err != nil || !yes.NeedsInput() || !strings.Contains(yes.InputRequests["deploy"].(*mcp.ElicitParams).Message, "type “staging” to confirm") {
		t.Fatalf("approve_deployment with a yes: %+v, %v", yes, err)
	}
	d3, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "approve_deployment", Arguments: env, RequestState: yes.RequestState,
		InputResponses: mcp.InputResponseMap{"deploy": accept(map[string]any{"confirm": "staging"})}})
	if err != nil || d3.NeedsInput() || d3.IsError || text(t, d3) != "Deployed search@2.1.0 to staging as rel-42." {
		t.Fatalf("approve_deployment round 3: %+v %q, %v", d3, text(t, d3), err)
	}
}

// TestServeDiscoveredChoicesOlderClient: a 2025-11-25 client is asked over
// its session with the same form, offering the same customers.
func TestServeDiscoveredChoicesOlderClient(t *testing.T) {
	s := start(t, "memory:", testRing(t), "choices-legacy")
	ctx := context.Background()
	var offered []string
	cs := connect(t, s.URL, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if choices := choicesOf(t, req.Params.RequestedSchema, "customer"); len(choices) > 0 {
				offered = choices
				return accept(map[string]any{"customer": choices[1]}), nil
			}
			return accept(map[string]any{"confirm": true}), nil
		},
	}, "2025-11-25")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cancel_subscription", Arguments: map[string]any{"name": "smith"}})
	if err != nil || res.IsError || text(t, res) != "Cancelled the Basic subscription of John Smith (cus_smith02)." {
		t.Fatalf("legacy call: %+v %q, %v", res, text(t, res), err)
	}
	if strings.Join(offered, " ") != "cus_smith01 cus_smith02 cus_smith03" {
		t.Fatalf("offered %q over the session", offered)
	}
}
