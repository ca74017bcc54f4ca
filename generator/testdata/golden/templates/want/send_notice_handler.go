// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package notify

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// SendNoticeImpl implements SendNoticeHandler for tool send_notice.
// Give it what the methods need: a database handle, API clients.
type SendNoticeImpl struct{}

var _ SendNoticeHandler = (*SendNoticeImpl)(nil)

// Authorize decides whether f.Call.Principal may run send_notice with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *SendNoticeImpl) Authorize(ctx context.Context, f *SendNoticeFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("send_notice: Authorize is not implemented yet")
}

// PrepareNotice is the check of state prepare.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *SendNoticeImpl) PrepareNotice(ctx context.Context, f *SendNoticeFlow) error {
	// TODO: check prepareNotice; set f.Continuation fields later states need.
	return errors.New("send_notice: PrepareNotice is not implemented yet")
}

// SendNotice is the side effect of state send. Once it returned, it is not run again for operation
// id
// notice-{to}-{count}-{ratio}-{urgent}-{level}-{details.title}-{details.copies}-{details.pin}-{details.tone}-{subject}-{sent}-{workflowId}:
// retries replay its outcome. If the instance running it dies first, a retry runs it again after
// the lease (at least once): f.Call.Attempt.Takeover says so, and f.Call.Attempt.OperationID is the
// same on every attempt; pass it as the idempotency key of the downstream call. Store its results
// in f.Continuation. Return mrtr.Reject for a definite refusal (recorded and replayed); any other
// error lets a retry try again.
func (h *SendNoticeImpl) SendNotice(ctx context.Context, f *SendNoticeFlow) error {
	// TODO: perform sendNotice; record its results in f.Continuation.
	return errors.New("send_notice: SendNotice is not implemented yet")
}
