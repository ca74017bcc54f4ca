// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package review

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestReviewDocumentHandler drives ReviewDocumentImpl through one review_document workflow as a
// client would: typed arguments, each question answered with its typed answer, what it asks and how
// it ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice"
// unless you set it): set h.Principal before DriveReviewDocument to start one as another caller.
func TestReviewDocumentHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewReviewDocumentProgram(&ReviewDocumentImpl{}))
	d := DriveReviewDocument(t, h, ReviewDocumentArgs{DocumentID: "example"})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestReviewDocumentHandlerMatrix runs the MRTR test matrix against ReviewDocumentImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestReviewDocumentHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &ReviewDocumentImpl{}
	mrtrtest.RunMatrix(t, NewReviewDocumentProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(ReviewDocumentChangeAnswer{Summary: "example"}),
		Args:         map[string]any{"documentId": "example"},
		Invalid:      map[string]mcp.InputResponse{"change": mrtrtest.Accept(map[string]any{"summary": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"documentId": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
