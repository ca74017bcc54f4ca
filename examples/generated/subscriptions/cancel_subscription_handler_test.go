package subscriptions

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

func pick(id string) mcp.InputResponseMap {
	return mcp.InputResponseMap{"choice": mrtrtest.Accept(map[string]any{"customer": id})}
}

var yes = mcp.InputResponseMap{"cancel": mrtrtest.Accept(map[string]any{"confirm": true})}

// TestCancelSubscriptionRealMatrix runs the MRTR matrix against the real
// handler: "Smith" matches three demo customers, the fixture workflow
// picks Jane Smith (cus_smith01, Pro) and cancels her plan; an answer
// naming a customer that was not among the matches is invalid. The variant
// "Lovelace" has one match (alice manages it), which skips the pick.
func TestCancelSubscriptionRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	jane, ada := data.Effects(cancelTool, "cus_smith01"), data.Effects(cancelTool, "cus_ada0001")
	mrtrtest.RunMatrix(t, NewCancelSubscriptionProgram(&CancelSubscriptionImpl{Data: data}), mrtrtest.Fixtures{
		Args:      map[string]any{"name": "Smith"},
		Answers:   map[string]mcp.InputResponse{"choice": pick("cus_smith01")["choice"]},
		Invalid:   map[string]mcp.InputResponse{"choice": pick("cus_acme01")["choice"]},
		Principal: "alice",
		Other:     "bob",
		OtherArgs: map[string]any{"name": "Jane"},
		Effects:   func() int { return jane() + ada() },
		Break:     data.BreakWrites,
		Variants:  []mrtrtest.Variant{{Name: "one match", Args: map[string]any{"name": "Lovelace"}}},
		NotApplicable: map[string]string{
			mrtrtest.ScenarioUnauthorized: "Authorize lets everyone search; the checks offer and load only the accounts the caller may manage",
		},
	}, data.Harness(t))
}

// offered returns the const=title pairs a form offers for field.
func offered(t *testing.T, r *mrtr.Reply, key, field string) []string {
	t.Helper()
	raw, err := json.Marshal(r.InputRequests[key].(*mcp.ElicitParams).RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			OneOf []struct{ Const, Title string } `json:"oneOf"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range s.Properties[field].OneOf {
		out = append(out, o.Const+"="+o.Title)
	}
	return out
}

func TestCancelSubscriptionPicksAmongMatches(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewCancelSubscriptionProgram(&CancelSubscriptionImpl{Data: data}))
	args := map[string]any{"name": "smith"}
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() || first.InputRequests["choice"] == nil {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	want := "cus_smith01=Jane Smith: Pro plan (cus_smith01) cus_smith02=John Smith: Basic plan (cus_smith02) cus_smith03=Smith Hardware: no plan (cus_smith03)"
	if got := strings.Join(offered(t, first, "choice", "customer"), " "); got != want {
		t.Fatalf("offered %q, want %q", got, want)
	}
	if strings.Contains(first.RequestState, "smith") {
		t.Fatal("requestState is not opaque")
	}

	// A customer that matches nothing offered is refused, though alice may
	// manage it: the pick is among the matches.
	again, err := h.Call(ctx, args, first.RequestState, pick("cus_acme01"))
	if err != nil || !again.NeedsInput() {
		t.Fatalf("a pick not offered: %+v, %v", again, err)
	}
	if msg := again.InputRequests["choice"].(*mcp.ElicitParams).Message; !strings.Contains(msg, `customer: "cus_acme01" is not one of the options offered (cus_smith01, cus_smith02, cus_smith03)`) {
		t.Fatalf("asked again with %q", msg)
	}

	confirm, err := h.Call(ctx, args, again.RequestState, pick("cus_smith02"))
	if err != nil || !confirm.NeedsInput() || confirm.InputRequests["cancel"] == nil {
		t.Fatalf("round 2: %+v, %v", confirm, err)
	}
	if q := confirm.InputRequests["cancel"].(*mcp.ElicitParams).Message; !strings.HasPrefix(q, "Cancel the Basic subscription of John Smith (cus_smith02)?") {
		t.Fatalf("the confirmation does not name the customer picked: %q", q)
	}
	done, err := h.Call(ctx, args, confirm.RequestState, yes)
	if err != nil || done.NeedsInput() || done.Final.Outcome != mrtr.OutcomeSuccess || done.Final.Text != "Cancelled the Basic subscription of John Smith (cus_smith02)." {
		t.Fatalf("round 3: %+v, %v", done, err)
	}
	c, _, _ := domain.Load[domain.Customer](ctx, data, domain.CustomerKey("cus_smith02"))
	if c.Plan != "" {
		t.Fatalf("the plan is still active: %+v", c)
	}
	if n := data.Effects(cancelTool, "cus_smith02")(); n != 1 {
		t.Fatalf("cancelled %d times", n)
	}
	if n := data.Effects(cancelTool, "cus_smith01")(); n != 0 {
		t.Fatalf("cancelled Jane's plan %d times", n)
	}
	// Searching again offers John Smith without a plan; picking him ends
	// the workflow: nothing to cancel.
	first, err = h.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() {
		t.Fatalf("again: %+v, %v", first, err)
	}
	r, err := h.Call(ctx, args, first.RequestState, pick("cus_smith02"))
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeFailed || r.Final.Text != "John Smith (cus_smith02) has no active subscription." {
		t.Fatalf("a customer without a plan: %+v, %v", r, err)
	}
}

// One match needs no pick; a caller who may manage no match finds none.
func TestCancelSubscriptionOneOrNoMatch(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewCancelSubscriptionProgram(&CancelSubscriptionImpl{Data: data}))
	args := map[string]any{"name": "Lovelace"}
	r, err := h.Call(ctx, args, "", nil)
	if err != nil || !r.NeedsInput() || r.InputRequests["cancel"] == nil || r.InputRequests["choice"] != nil {
		t.Fatalf("one match: %+v, %v", r, err)
	}
	h.Principal = "bob" // Ada Lovelace's account is alice's
	r, err = h.Call(ctx, args, "", nil)
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeFailed || !strings.Contains(r.Final.Text, `named like "Lovelace"`) {
		t.Fatalf("no match bob may manage: %+v, %v", r, err)
	}
	h.Principal = "alice"
	r, err = h.Call(ctx, map[string]any{"name": "x"}, "", nil)
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeInvalidArguments || !strings.Contains(r.Final.Text, "name: at least 2 characters") {
		t.Fatalf("a name too short: %+v, %v", r.Final, err)
	}
}

// The user confirmed the plan they were shown; a plan changed meanwhile
// stops the workflow without cancelling anything.
func TestCancelSubscriptionChangedWhileConfirming(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewCancelSubscriptionProgram(&CancelSubscriptionImpl{Data: data}))
	args := map[string]any{"name": "Smith"}
	first, err := h.Call(ctx, args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	confirm, err := h.Call(ctx, args, first.RequestState, pick("cus_smith01"))
	if err != nil || confirm.InputRequests["cancel"] == nil {
		t.Fatalf("round 2: %+v, %v", confirm, err)
	}
	if err := domain.Update(ctx, data, domain.CustomerKey("cus_smith01"), "", func(c *domain.Customer) error {
		c.Plan = "Team"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r, err := h.Call(ctx, args, confirm.RequestState, yes)
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeFailed || !strings.Contains(r.Final.Text, "changed while waiting") {
		t.Fatalf("round 3: %+v, %v", r, err)
	}
	if n := data.Effects(cancelTool, "cus_smith01")(); n != 0 {
		t.Fatalf("cancelled %d times", n)
	}
}
