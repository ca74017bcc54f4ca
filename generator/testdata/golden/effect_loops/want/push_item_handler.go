// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package loops

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// PushItemImpl implements PushItemHandler for tool push_item.
// Give it what the methods need: a database handle, API clients.
type PushItemImpl struct{}

var _ PushItemHandler = (*PushItemImpl)(nil)

// Authorize decides whether f.Call.Principal may run push_item with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *PushItemImpl) Authorize(ctx context.Context, f *PushItemFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("push_item: Authorize is not implemented yet")
}

// PushItem is the side effect of state push. Once it returned, it is not run again for operation id
// push-{item}: retries replay its outcome. If the instance running it dies first, a retry runs it
// again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *PushItemImpl) PushItem(ctx context.Context, f *PushItemFlow) error {
	// TODO: perform pushItem; record its results in f.Continuation.
	return errors.New("push_item: PushItem is not implemented yet")
}

// PushVerified is the check of state verify.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *PushItemImpl) PushVerified(ctx context.Context, f *PushItemFlow) (PushItemPushVerifiedOutcome, error) {
	// TODO: check pushVerified; set f.Continuation fields later states need.
	return 0, errors.New("push_item: PushVerified is not implemented yet")
}

// SendPing is the side effect of state ping. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *PushItemImpl) SendPing(ctx context.Context, f *PushItemFlow) error {
	// TODO: perform sendPing; record its results in f.Continuation.
	return errors.New("push_item: SendPing is not implemented yet")
}

// Settled is the check of state settle.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *PushItemImpl) Settled(ctx context.Context, f *PushItemFlow) (PushItemSettledOutcome, error) {
	// TODO: check settled; set f.Continuation fields later states need.
	return 0, errors.New("push_item: Settled is not implemented yet")
}
