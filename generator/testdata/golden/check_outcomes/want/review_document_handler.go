// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package review

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ReviewDocumentImpl implements ReviewDocumentHandler for tool review_document.
// Give it what the methods need: a database handle, API clients.
type ReviewDocumentImpl struct{}

var _ ReviewDocumentHandler = (*ReviewDocumentImpl)(nil)

// Authorize decides whether f.Call.Principal may run review_document with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ReviewDocumentImpl) Authorize(ctx context.Context, f *ReviewDocumentFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("review_document: Authorize is not implemented yet")
}

// LoadDocument is the check of state load.
// The document exists and the caller may review it.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ReviewDocumentImpl) LoadDocument(ctx context.Context, f *ReviewDocumentFlow) error {
	// TODO: check loadDocument; set f.Continuation fields later states need.
	return errors.New("review_document: LoadDocument is not implemented yet")
}

// ReviewDocument is the check of state review.
// Decide what the document needs.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ReviewDocumentImpl) ReviewDocument(ctx context.Context, f *ReviewDocumentFlow) (ReviewDocumentReviewDocumentOutcome, error) {
	// TODO: check reviewDocument; set f.Continuation fields later states need.
	return 0, errors.New("review_document: ReviewDocument is not implemented yet")
}

// RecordApproval is the check of state approve.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ReviewDocumentImpl) RecordApproval(ctx context.Context, f *ReviewDocumentFlow) error {
	// TODO: check recordApproval; set f.Continuation fields later states need.
	return errors.New("review_document: RecordApproval is not implemented yet")
}
