package subscriptions

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/subscriptions.mrtr.yaml

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// CancelSubscriptionImpl implements CancelSubscriptionHandler on the domain
// store: customers are found by name through the customer index, the one
// meant is picked among the matches when there are several, and the plan
// is cancelled after a confirmation and a recheck.
//
// Access rule, as for deleting: an account with account managers is
// theirs; one without (the seeded sandbox accounts) is anyone's. The
// search offers only the accounts the caller may manage, so a pick can
// only name one of those; the later checks apply the rule again, since the
// managers may change while the user decides.
type CancelSubscriptionImpl struct {
	Data domain.Store
}

var _ CancelSubscriptionHandler = (*CancelSubscriptionImpl)(nil)

const cancelTool = "cancel_subscription"

// Authorize lets everyone search: which accounts a caller may act on is
// decided per account, by the checks.
func (h *CancelSubscriptionImpl) Authorize(context.Context, *CancelSubscriptionFlow) error {
	return nil
}

// maxMatches is the continuation's maxItems for matches: a search that
// finds more asks the caller to narrow it rather than offering a long list.
const maxMatches = 10

// FindCustomers finds the live accounts the caller may manage whose names
// contain f.Args.Name (case-insensitive), in index order. Several are
// offered to pick from (each titled with its name and plan); one is taken
// as it is.
func (h *CancelSubscriptionImpl) FindCustomers(ctx context.Context, f *CancelSubscriptionFlow) (CancelSubscriptionFindCustomersOutcome, error) {
	ids, err := domain.Index(ctx, h.Data, domain.CustomerIndexKey)
	if err != nil {
		return 0, err
	}
	want := strings.ToLower(strings.TrimSpace(f.Args.Name))
	var found []domain.Customer
	for _, id := range ids {
		c, ok, err := domain.Load[domain.Customer](ctx, h.Data, domain.CustomerKey(id))
		if err != nil {
			return 0, err
		}
		if !ok || c.Deleted || !domain.Allowed(f.Call.Principal, c.Managers) || !strings.Contains(strings.ToLower(c.Name), want) {
			continue
		}
		found = append(found, c)
	}
	switch {
	case len(found) == 0:
		return CancelSubscriptionFindCustomersNone, nil
	case len(found) == 1:
		f.Continuation.CustomerID = found[0].ID
		return CancelSubscriptionFindCustomersOne, nil
	case len(found) > maxMatches:
		return 0, mrtr.Reject("%d customers match %q; give more of the name", len(found), f.Args.Name)
	}
	for _, c := range found {
		f.Continuation.Matches = append(f.Continuation.Matches, mrtr.Option{Value: c.ID, Title: matchTitle(c)})
	}
	return CancelSubscriptionFindCustomersSeveral, nil
}

// matchTitle is how a match is shown: "Jane Smith: Pro plan
// (cus_smith01)". The e-mail address is personal data the form does not
// need: it stays out.
func matchTitle(c domain.Customer) string {
	plan := "no plan"
	if c.Plan != "" {
		plan = c.Plan + " plan"
	}
	title := fmt.Sprintf("%s: %s (%s)", c.Name, plan, c.ID)
	if r := []rune(title); len(r) > 100 {
		title = string(r[:99]) + "…"
	}
	return title
}

// LoadCustomer loads the account the workflow is about: the one picked
// (the generated code has checked it is one of the matches offered), or
// the only match.
func (h *CancelSubscriptionImpl) LoadCustomer(ctx context.Context, f *CancelSubscriptionFlow) (CancelSubscriptionLoadCustomerOutcome, error) {
	if f.Choice != nil {
		f.Continuation.CustomerID = f.Choice.Customer
	}
	c, err := h.account(ctx, f)
	if err != nil {
		return 0, err
	}
	f.Continuation.CustomerName = c.Name
	if c.Plan == "" {
		return CancelSubscriptionLoadCustomerUnsubscribed, nil
	}
	f.Continuation.Plan = c.Plan
	return CancelSubscriptionLoadCustomerSubscribed, nil
}

// account loads f's account and applies the access rule to it.
func (h *CancelSubscriptionImpl) account(ctx context.Context, f *CancelSubscriptionFlow) (domain.Customer, error) {
	id := f.Continuation.CustomerID
	c, ok, err := domain.Load[domain.Customer](ctx, h.Data, domain.CustomerKey(id))
	if err != nil {
		return c, err
	}
	if !ok || c.Deleted {
		return c, mrtr.Reject("customer %s does not exist", id)
	}
	if !domain.Allowed(f.Call.Principal, c.Managers) {
		return c, mrtr.Reject("only the account managers of %s may cancel its subscription", id)
	}
	return c, nil
}

// RecheckSubscription runs after the confirmation: the user confirmed
// cancelling the plan they were shown.
func (h *CancelSubscriptionImpl) RecheckSubscription(ctx context.Context, f *CancelSubscriptionFlow) (CancelSubscriptionRecheckSubscriptionOutcome, error) {
	c, err := h.account(ctx, f)
	if err != nil {
		return 0, err
	}
	if c.Plan != f.Continuation.Plan {
		return CancelSubscriptionRecheckSubscriptionChanged, nil
	}
	return CancelSubscriptionRecheckSubscriptionUnchanged, nil
}

// CancelSubscription ends the plan, counted in
// effects:cancel_subscription:<id>. The engine runs it once per account
// (operation cancel-{customerId}); a retry that finds the plan cancelled by
// this very workflow changes nothing.
func (h *CancelSubscriptionImpl) CancelSubscription(ctx context.Context, f *CancelSubscriptionFlow) error {
	id := f.Continuation.CustomerID
	err := domain.Update(ctx, h.Data, domain.CustomerKey(id), domain.EffectKey(cancelTool, id), func(c *domain.Customer) error {
		switch {
		case c.Deleted:
			return mrtr.Reject("customer %s was deleted meanwhile; nothing was cancelled", id)
		case c.Plan == "" && c.PlanCancelledBy == f.Call.WorkflowID:
			return domain.ErrUnchanged
		case c.Plan != f.Continuation.Plan:
			return mrtr.Reject("the subscription of %s changed meanwhile; nothing was cancelled", id)
		}
		c.Plan, c.PlanCancelledBy = "", f.Call.WorkflowID
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return mrtr.Reject("customer %s no longer exists", id)
	}
	return err
}
