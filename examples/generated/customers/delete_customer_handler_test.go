package customers

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

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

// TestDeleteCustomerStructuredResult: the result of a deletion carries the
// structured record (structuredContent) the handler read back from the
// tombstone, valid against the tool's outputSchema; a retry of the final
// round replays the very same bytes, though the clock has moved on.
func TestDeleteCustomerStructuredResult(t *testing.T) {
	data := domaintest.New(t)
	now := time.Date(2026, 7, 28, 9, 30, 0, 0, time.UTC)
	impl := &DeleteCustomerImpl{Data: data, Now: func() time.Time { return now }}
	h := mrtrtest.New(t, NewDeleteCustomerProgram(impl))
	d := DriveDeleteCustomer(t, h, customer("cus_acme01")).WantAsks("cancelSubscription").Confirm().WantEnd(mrtr.OutcomeSuccess, "Deleted customer cus_acme01.")
	want := `{"cancelledPlan":"Enterprise","customerId":"cus_acme01","deleted":true,"deletedAt":"2026-07-28T09:30:00Z"}`
	if got := string(d.Reply().Final.Structured); got != want {
		t.Fatalf("structured result %s, want %s", got, want)
	}
	now = now.Add(time.Hour)
	if got := string(d.Replay().Reply().Final.Structured); got != want {
		t.Fatalf("the replayed final round has structured result %s, want the recorded %s", got, want)
	}
	// Declining keeps the account, and says so in the structured result.
	kept := DriveDeleteCustomer(t, h, customer("cus_beta02")).WantAsks("deleteCustomer").Refuse().WantEnd(mrtr.OutcomeCancelled, "was not deleted")
	if got := string(kept.Reply().Final.Structured); got != `{"customerId":"cus_beta02","deleted":false}` {
		t.Fatalf("structured result of a declined deletion: %s", got)
	}
}

// forgetfulOutput is the real handler with an output method that leaves a
// required field (deletedAt) unset.
type forgetfulOutput struct{ *DeleteCustomerImpl }

func (h forgetfulOutput) DeletedOutput(ctx context.Context, f *DeleteCustomerFlow, out *DeleteCustomerOutput) error {
	if err := h.DeleteCustomerImpl.DeletedOutput(ctx, f, out); err != nil {
		return err
	}
	out.DeletedAt = ""
	return nil
}

// TestDeleteCustomerOutputNotSet: a handler that leaves a required output
// unset fails the round as a dependency failure, with no half-empty
// result, and the log names the tool, the state and the field.
func TestDeleteCustomerOutputNotSet(t *testing.T) {
	data := domaintest.New(t)
	var logs strings.Builder
	h := mrtrtest.New(t, NewDeleteCustomerProgram(forgetfulOutput{&DeleteCustomerImpl{Data: data}}),
		mrtrtest.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	d := DriveDeleteCustomer(t, h, customer("cus_acme01")).WantAsks("cancelSubscription").Confirm().
		WantEnd(mrtr.OutcomeError, "delete_customer failed at deleted")
	if s := d.Reply().Final.Structured; s != nil {
		t.Fatalf("a failed round carries a structured result: %s", s)
	}
	for _, want := range []string{"tool=delete_customer", "state=deleted", "output field deletedAt is required but not set (set out.DeletedAt)", "DeletedOutput"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logs.String())
		}
	}
}
