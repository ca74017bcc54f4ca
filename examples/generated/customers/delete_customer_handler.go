/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package customers

import (
	"context"
	"errors"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// DeleteCustomerImpl implements DeleteCustomerHandler for tool delete_customer.
// Give it what the methods need: a database handle, API clients.
type DeleteCustomerImpl struct{}

var _ DeleteCustomerHandler = (*DeleteCustomerImpl)(nil)

// Authorize decides whether f.Call.Principal may run delete_customer with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *DeleteCustomerImpl) Authorize(ctx context.Context, f *DeleteCustomerFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("delete_customer: Authorize is not implemented yet")
}

// InspectCustomer is the check of state inspect (examples/specs/customers.mrtr.yaml:41:16).
// The customer exists and the caller may delete it; find out whether a subscription is active.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *DeleteCustomerImpl) InspectCustomer(ctx context.Context, f *DeleteCustomerFlow) (DeleteCustomerInspectCustomerOutcome, error) {
	// TODO: check inspectCustomer; set f.Continuation fields later states need.
	return 0, errors.New("delete_customer: InspectCustomer is not implemented yet")
}

// RecheckCustomer is the check of state recheck (examples/specs/customers.mrtr.yaml:61:16).
// Business validation after confirmation; the account may have changed while the user was deciding.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *DeleteCustomerImpl) RecheckCustomer(ctx context.Context, f *DeleteCustomerFlow) (DeleteCustomerRecheckCustomerOutcome, error) {
	// TODO: check recheckCustomer; set f.Continuation fields later states need.
	return 0, errors.New("delete_customer: RecheckCustomer is not implemented yet")
}

// DeleteCustomer is the irreversible side effect of state delete (examples/specs/customers.mrtr.yaml:66:17). It runs at most once per
// operation id delete-{customerId}; retries replay its outcome. Store its results in f.Continuation.
// Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *DeleteCustomerImpl) DeleteCustomer(ctx context.Context, f *DeleteCustomerFlow) error {
	// TODO: perform deleteCustomer; record its results in f.Continuation.
	return errors.New("delete_customer: DeleteCustomer is not implemented yet")
}
