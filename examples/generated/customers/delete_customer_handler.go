package customers

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/customers.mrtr.yaml

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// DeleteCustomerImpl implements DeleteCustomerHandler on the domain store:
// the account is inspected, rechecked after the confirmation, then deleted
// (its subscription cancelled with it) and a deletion receipt queued for
// the customer's address.
//
// Access rule: an account that has account managers may be deleted only by
// them; an account without (the seeded sandbox accounts cus_demo…) by
// anyone, anonymous callers included.
type DeleteCustomerImpl struct {
	Data domain.Store
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

var _ DeleteCustomerHandler = (*DeleteCustomerImpl)(nil)

const deleteTool = "delete_customer"

func (h *DeleteCustomerImpl) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Authorize applies the access rule on every round (a manager removed
// while the user was deciding can no longer delete). An unknown account is
// left to the inspect check.
func (h *DeleteCustomerImpl) Authorize(ctx context.Context, f *DeleteCustomerFlow) error {
	c, ok, err := domain.Load[domain.Customer](ctx, h.Data, domain.CustomerKey(f.Args.CustomerID))
	if err != nil || !ok {
		return err
	}
	if !domain.Allowed(f.Call.Principal, c.Managers) {
		return mrtr.Forbidden("only the account managers of %s may delete it", c.ID)
	}
	return nil
}

// InspectCustomer finds the account and whether a subscription is active.
// The plan (shown in the question) and the contact address (for the
// receipt; sensitive, so the continuation stays server-side) are kept for
// the next rounds.
func (h *DeleteCustomerImpl) InspectCustomer(ctx context.Context, f *DeleteCustomerFlow) (DeleteCustomerInspectCustomerOutcome, error) {
	c, ok, err := domain.Load[domain.Customer](ctx, h.Data, domain.CustomerKey(f.Args.CustomerID))
	if err != nil {
		return 0, err
	}
	if !ok || c.Deleted {
		return 0, mrtr.Reject("customer %s does not exist", f.Args.CustomerID)
	}
	f.Continuation.Plan = c.Plan
	f.Continuation.Email = c.Email
	if c.Plan != "" {
		return DeleteCustomerInspectCustomerActiveSubscription, nil
	}
	return DeleteCustomerInspectCustomerNoSubscription, nil
}

// RecheckCustomer runs after the confirmation: the user confirmed what they
// were shown, so a subscription taken or changed meanwhile means starting
// again. An account deleted meanwhile is a refusal.
func (h *DeleteCustomerImpl) RecheckCustomer(ctx context.Context, f *DeleteCustomerFlow) (DeleteCustomerRecheckCustomerOutcome, error) {
	c, ok, err := domain.Load[domain.Customer](ctx, h.Data, domain.CustomerKey(f.Args.CustomerID))
	if err != nil {
		return 0, err
	}
	if !ok || c.Deleted {
		return 0, mrtr.Reject("customer %s was deleted meanwhile", f.Args.CustomerID)
	}
	if c.Plan != f.Continuation.Plan {
		return DeleteCustomerRecheckCustomerChanged, nil
	}
	return DeleteCustomerRecheckCustomerUnchanged, nil
}

// DeleteCustomer cancels the subscription and deletes the account in one
// change (a tombstone without personal data stays), counted in
// effects:delete_customer:<id>, then queues the receipt. The engine runs it
// at most once per account (operation delete-{customerId}); a retry that
// finds the account deleted by this very workflow only finishes queueing
// the receipt.
func (h *DeleteCustomerImpl) DeleteCustomer(ctx context.Context, f *DeleteCustomerFlow) error {
	id := f.Args.CustomerID
	now := h.now().UTC()
	err := domain.Update(ctx, h.Data, domain.CustomerKey(id), domain.EffectKey(deleteTool, id), func(c *domain.Customer) error {
		if c.Deleted {
			if c.DeletedBy == f.Call.WorkflowID {
				return domain.ErrUnchanged
			}
			return mrtr.Reject("customer %s was deleted by someone else meanwhile", id)
		}
		if c.Plan != f.Continuation.Plan {
			return mrtr.Reject("customer %s changed its subscription meanwhile; nothing was deleted", id)
		}
		*c = domain.Customer{ID: c.ID, Deleted: true, DeletedBy: f.Call.WorkflowID, DeletedAt: now}
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return mrtr.Reject("customer %s no longer exists", id)
	}
	if err != nil {
		return err
	}
	if f.Continuation.Email == "" {
		return nil
	}
	receipt, err := json.Marshal(map[string]any{
		"to":      f.Continuation.Email,
		"subject": "Your account " + id + " was deleted",
		"plan":    f.Continuation.Plan,
		"at":      now,
	})
	if err != nil {
		return err
	}
	return h.Data.Put(ctx, domain.OutboxKey("delete-"+id), string(receipt))
}

// DeletedOutput is the structured result of a deletion: read back from the
// account's tombstone, which this workflow wrote (a tombstone of another
// workflow, or none, means the store lost what the effect recorded: a
// dependency failure, not a result). The plan the deletion cancelled is
// the one the user confirmed.
func (h *DeleteCustomerImpl) DeletedOutput(ctx context.Context, f *DeleteCustomerFlow, out *DeleteCustomerOutput) error {
	id := f.Args.CustomerID
	c, ok, err := domain.Load[domain.Customer](ctx, h.Data, domain.CustomerKey(id))
	if err != nil {
		return err
	}
	if !ok || !c.Deleted || c.DeletedBy != f.Call.WorkflowID {
		return fmt.Errorf("customer %s: no tombstone of workflow %s after its delete", id, f.Call.WorkflowID)
	}
	out.CustomerID = c.ID
	out.Deleted = new(true)
	out.CancelledPlan = f.Continuation.Plan
	out.DeletedAt = c.DeletedAt.UTC().Format(time.RFC3339)
	return nil
}

// KeptOutput is the structured result of a declined deletion: the account
// is still there.
func (h *DeleteCustomerImpl) KeptOutput(ctx context.Context, f *DeleteCustomerFlow, out *DeleteCustomerOutput) error {
	out.CustomerID = f.Args.CustomerID
	out.Deleted = new(false)
	return nil
}
