// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package review

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// PublishDocumentImpl implements PublishDocumentHandler for tool publish_document.
// Give it what the methods need: a database handle, API clients.
type PublishDocumentImpl struct{}

var _ PublishDocumentHandler = (*PublishDocumentImpl)(nil)

// Authorize decides whether f.Call.Principal may run publish_document with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *PublishDocumentImpl) Authorize(ctx context.Context, f *PublishDocumentFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("publish_document: Authorize is not implemented yet")
}

// ReadyToPublish is the check of state recheck.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *PublishDocumentImpl) ReadyToPublish(ctx context.Context, f *PublishDocumentFlow) (PublishDocumentReadyToPublishOutcome, error) {
	// TODO: check readyToPublish; set f.Continuation fields later states need.
	return 0, errors.New("publish_document: ReadyToPublish is not implemented yet")
}

// PublishDocument is the irreversible side effect of state publish. Once it returned, it is not run
// again for this workflow round: retries replay its outcome. If the instance running it dies first,
// a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *PublishDocumentImpl) PublishDocument(ctx context.Context, f *PublishDocumentFlow) error {
	// TODO: perform publishDocument; record its results in f.Continuation.
	return errors.New("publish_document: PublishDocument is not implemented yet")
}
