// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package search

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// SearchOrdersImpl implements SearchOrdersHandler for tool search_orders.
// Give it what the methods need: a database handle, API clients.
type SearchOrdersImpl struct{}

var _ SearchOrdersHandler = (*SearchOrdersImpl)(nil)

// Authorize decides whether f.Call.Principal may run search_orders with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *SearchOrdersImpl) Authorize(ctx context.Context, f *SearchOrdersFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("search_orders: Authorize is not implemented yet")
}

// FindOrders is the check of state find.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *SearchOrdersImpl) FindOrders(ctx context.Context, f *SearchOrdersFlow) error {
	// TODO: check findOrders; set f.Continuation fields later states need.
	return errors.New("search_orders: FindOrders is not implemented yet")
}

// OpenOrder is the check of state open.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *SearchOrdersImpl) OpenOrder(ctx context.Context, f *SearchOrdersFlow) error {
	// TODO: check openOrder; set f.Continuation fields later states need.
	return errors.New("search_orders: OpenOrder is not implemented yet")
}
