package customers

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func yes(key string) mcp.InputResponseMap {
	return mcp.InputResponseMap{key: mrtrtest.Accept(map[string]any{"confirm": true})}
}

// TestDeleteCustomerRealMatrix runs the MRTR matrix against the real
// handler on the demo customer cus_acme01 (active Enterprise
// subscription), which only its managers alice and bob may delete (mallory
// is refused on every round). The gate of a customer without subscription
// (confirmDeletion) is on another branch: the variant cus_beta02 takes it.
func TestDeleteCustomerRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	acme, beta := data.Effects(deleteTool, "cus_acme01"), data.Effects(deleteTool, "cus_beta02")
	mrtrtest.RunMatrix(t, NewDeleteCustomerProgram(&DeleteCustomerImpl{Data: data}), mrtrtest.Fixtures{
		Args:         map[string]any{"customerId": "cus_acme01"},
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    map[string]any{"customerId": "cus_demo2"},
		Effects:      func() int { return acme() + beta() },
		Break:        data.BreakWrites,
		Variants:     []mrtrtest.Variant{{Name: "no subscription", Args: map[string]any{"customerId": "cus_beta02"}}},
	}, data.Harness(t))
}

func TestDeleteCustomerWithSubscription(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewDeleteCustomerProgram(&DeleteCustomerImpl{Data: data}))
	args := map[string]any{"customerId": "cus_acme01"}
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() || first.InputRequests["cancelSubscription"] == nil {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	if q := first.InputRequests["cancelSubscription"].(*mcp.ElicitParams).Message; !strings.Contains(q, "active Enterprise subscription") {
		t.Fatalf("the question does not name the plan: %q", q)
	}
	if strings.Contains(first.RequestState, "acme") {
		t.Fatal("requestState is not opaque")
	}
	done, err := h.Call(ctx, args, first.RequestState, yes("cancelSubscription"))
	if err != nil || done.NeedsInput() || done.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("round 2: %+v, %v", done, err)
	}
	c, _, _ := domain.Load[domain.Customer](ctx, data, domain.CustomerKey("cus_acme01"))
	if !c.Deleted || c.Plan != "" || c.Email != "" || c.Name != "" {
		t.Fatalf("the account is not deleted with its personal data: %+v", c)
	}
	receipt, ok, _ := data.Get(ctx, domain.OutboxKey("delete-cus_acme01"))
	if !ok || !strings.Contains(receipt, "it@acme.example") {
		t.Fatalf("no receipt queued for the account's address: %q", receipt)
	}
	if n := data.Effects(deleteTool, "cus_acme01")(); n != 1 {
		t.Fatalf("deleted %d times", n)
	}
	// Deleting it again is refused at once.
	again, err := h.Call(ctx, args, "", nil)
	if err != nil || again.NeedsInput() || again.Final.Outcome != mrtr.OutcomeRejected || !strings.Contains(again.Final.Text, "does not exist") {
		t.Fatalf("deleting a deleted customer: %+v, %v", again, err)
	}
}

// TestDeleteCustomerChangedWhileConfirming: the user confirmed deleting an
// account without subscription; one was taken meanwhile, so nothing is
// deleted.
func TestDeleteCustomerChangedWhileConfirming(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewDeleteCustomerProgram(&DeleteCustomerImpl{Data: data}))
	args := map[string]any{"customerId": "cus_beta02"}
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || first.InputRequests["deleteCustomer"] == nil {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	if err := domain.Update(ctx, data, domain.CustomerKey("cus_beta02"), "", func(c *domain.Customer) error {
		c.Plan = "Team"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r, err := h.Call(ctx, args, first.RequestState, yes("deleteCustomer"))
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeFailed || !strings.Contains(r.Final.Text, "changed while waiting") {
		t.Fatalf("round 2: %+v, %v", r, err)
	}
	if n := data.Effects(deleteTool, "cus_beta02")(); n != 0 {
		t.Fatalf("deleted %d times", n)
	}
}

func TestDeleteCustomerDeclined(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewDeleteCustomerProgram(&DeleteCustomerImpl{Data: data}))
	args := map[string]any{"customerId": "cus_demo2"}
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || first.InputRequests["deleteCustomer"] == nil {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	r, err := h.Call(ctx, args, first.RequestState, mcp.InputResponseMap{"deleteCustomer": mrtrtest.Decline()})
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeCancelled {
		t.Fatalf("declined: %+v, %v", r, err)
	}
	if c, _, _ := domain.Load[domain.Customer](ctx, data, domain.CustomerKey("cus_demo2")); c.Deleted {
		t.Fatal("deleted after the user declined")
	}
}

func TestDeleteCustomerManagersOnly(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewDeleteCustomerProgram(&DeleteCustomerImpl{Data: data}))
	for _, c := range []struct {
		principal, id string
		want          mrtr.Outcome
	}{
		{"", "cus_acme01", mrtr.OutcomeUnauthorized},
		{"mallory", "cus_acme01", mrtr.OutcomeUnauthorized},
		{"bob", "cus_acme01", ""}, // asks for the confirmation
		{"", "cus_demo2", ""},
		{"alice", "cus_nobody", mrtr.OutcomeRejected},
	} {
		h.Principal = c.principal
		r, err := h.Call(context.Background(), map[string]any{"customerId": c.id}, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" {
			if !r.NeedsInput() {
				t.Errorf("%q deleting %s: %+v, want a confirmation", c.principal, c.id, r.Final)
			}
			continue
		}
		if r.NeedsInput() || r.Final.Outcome != c.want {
			t.Errorf("%q deleting %s: %+v, want %s", c.principal, c.id, r, c.want)
		}
	}
}
