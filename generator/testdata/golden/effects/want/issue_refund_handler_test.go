// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package billing

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestIssueRefundHandler drives IssueRefundImpl through one issue_refund workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveIssueRefund to start one as another caller.
func TestIssueRefundHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewIssueRefundProgram(&IssueRefundImpl{}))
	d := DriveIssueRefund(t, h, IssueRefundArgs{
		AmountCents: 1,
		OrderID:     "ord_0",
	})
	d.WantAsks("channel")
	d.Answer(IssueRefundChannelAnswer{Via: IssueRefundViaEmail})
	d.WantAsks("confirm")
	d.Confirm()
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestIssueRefundHandlerMatrix runs the MRTR test matrix against IssueRefundImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestIssueRefundHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &IssueRefundImpl{}
	mrtrtest.RunMatrix(t, NewIssueRefundProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(IssueRefundChannelAnswer{Via: IssueRefundViaEmail}),
		Args:         map[string]any{"amountCents": int64(1), "orderId": "ord_0"},
		Invalid:      map[string]mcp.InputResponse{"channel": mrtrtest.Accept(map[string]any{"via": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"amountCents": int64(2), "orderId": "ord_999999999999"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
