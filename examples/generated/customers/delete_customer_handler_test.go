package customers

import (
	"context"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func customer(id string) DeleteCustomerArgs { return DeleteCustomerArgs{CustomerID: id} }

// TestDeleteCustomerRealMatrix runs the MRTR matrix against the real
// handler on the demo customer cus_acme01 (active Enterprise
// subscription), which only its managers alice and bob may delete (mallory
// is refused on every round). The gate of a customer without subscription
// (confirmDeletion) is on another branch: the variant cus_beta02 takes it.
func TestDeleteCustomerRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	acme, beta := data.Effects(deleteTool, "cus_acme01"), data.Effects(deleteTool, "cus_beta02")
	mrtrtest.RunMatrix(t, NewDeleteCustomerProgram(&DeleteCustomerImpl{Data: data}), mrtrtest.Fixtures{
		Args:         customer("cus_acme01"),
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    customer("cus_demo2"),
		Effects:      func() int { return acme() + beta() },
		Break:        data.BreakWrites,
		Variants:     []mrtrtest.Variant{{Name: "no subscription", Args: customer("cus_beta02")}},
	}, data.Harness(t))
}

func TestDeleteCustomerWithSubscription(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewDeleteCustomerProgram(&DeleteCustomerImpl{Data: data}))
	d := DriveDeleteCustomer(t, h, customer("cus_acme01")).
		WantAsks("cancelSubscription").
		WantQuestion("cancelSubscription", "active Enterprise subscription")
	if strings.Contains(d.Reply().RequestState, "acme") {
		t.Fatal("requestState is not opaque")
	}
	d.Confirm().WantEnd(mrtr.OutcomeSuccess, "")
	c, _, _ := domain.Load[domain.Customer](ctx, data, domain.CustomerKey("cus_acme01"))
	if !c.Deleted || c.Plan != "" || c.Email != "" || c.Name != "" {
		t.Fatalf("the account is not deleted with its personal data: deleted %v, plan %q, email %q, name %q", c.Deleted, c.Plan, c.Email, c.Name)
	}
	receipt, ok, _ := data.Get(ctx, domain.OutboxKey("delete-cus_acme01"))
	if !ok || !strings.Contains(receipt, "it@acme.example") {
		t.Fatalf("no receipt queued for the account's address: %q", receipt)
	}
	if n := data.Effects(deleteTool, "cus_acme01")(); n != 1 {
		t.Fatalf("deleted %d times", n)
	}
	// Deleting it again is refused at once.
	DriveDeleteCustomer(t, h, customer("cus_acme01")).WantEnd(mrtr.OutcomeRejected, "does not exist")
}

// TestDeleteCustomerChangedWhileConfirming: the user confirmed deleting an
// account without subscription; one was taken meanwhile, so nothing is
// deleted.
func TestDeleteCustomerChangedWhileConfirming(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewDeleteCustomerProgram(&DeleteCustomerImpl{Data: data}))
	d := DriveDeleteCustomer(t, h, customer("cus_beta02")).WantAsks("deleteCustomer")
	if err := domain.Update(ctx, data, domain.CustomerKey("cus_beta02"), "", func(c *domain.Customer) error {
		c.Plan = "Team"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	d.Confirm().WantEnd(mrtr.OutcomeFailed, "changed while waiting")
	if n := data.Effects(deleteTool, "cus_beta02")(); n != 0 {
		t.Fatalf("deleted %d times", n)
	}
}

func TestDeleteCustomerDeclined(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewDeleteCustomerProgram(&DeleteCustomerImpl{Data: data}))
	DriveDeleteCustomer(t, h, customer("cus_demo2")).WantAsks("deleteCustomer").Decline("deleteCustomer").WantEnd(mrtr.OutcomeCancelled, "")
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
		gate          string // the confirmation asked, when it does not end
	}{
		{"", "cus_acme01", mrtr.OutcomeUnauthorized, ""},
		{"mallory", "cus_acme01", mrtr.OutcomeUnauthorized, ""},
		{"bob", "cus_acme01", "", "cancelSubscription"},
		{"", "cus_demo2", "", "deleteCustomer"},
		{"alice", "cus_nobody", mrtr.OutcomeRejected, ""},
	} {
		t.Run(c.principal+" deleting "+c.id, func(t *testing.T) {
			h.Principal = c.principal
			d := DriveDeleteCustomer(t, h, customer(c.id))
			if c.gate != "" {
				d.WantAsks(c.gate)
			} else {
				d.WantEnd(c.want, "")
			}
		})
	}
}
