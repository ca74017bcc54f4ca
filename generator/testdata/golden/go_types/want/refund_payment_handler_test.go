// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package refunds

import (
	"testing"

	uuid "github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/jsonform"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestRefundPaymentHandler drives RefundPaymentImpl through one refund_payment workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveRefundPayment to start one as another caller.
func TestRefundPaymentHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewRefundPaymentProgram(&RefundPaymentImpl{}))
	d := DriveRefundPayment(t, h, RefundPaymentArgs{
		Currency:  jsonform.Must[Currency]("EUR"),
		PaymentID: jsonform.Must[uuid.UUID]("6f1c2d3e-4a5b-4c6d-8e7f-001122334455"),
	})
	d.WantAsks("amount")
	d.Answer(RefundPaymentAmountAnswer{
		Cents:     jsonform.Must[Cents](int64(1)),
		Reference: new(jsonform.Must[TicketID]("T-0")),
	})
	d.WantAsks("confirm")
	d.Confirm()
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestRefundPaymentHandlerMatrix runs the MRTR test matrix against RefundPaymentImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestRefundPaymentHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &RefundPaymentImpl{}
	mrtrtest.RunMatrix(t, NewRefundPaymentProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(RefundPaymentAmountAnswer{
			Cents:     jsonform.Must[Cents](int64(1)),
			Reference: new(jsonform.Must[TicketID]("T-0")),
		}),
		Args:         map[string]any{"currency": "EUR", "paymentId": "6f1c2d3e-4a5b-4c6d-8e7f-001122334455"},
		Invalid:      map[string]mcp.InputResponse{"amount": mrtrtest.Accept(map[string]any{"cents": "not a number"})},
		Other:        "bob",
		OtherArgs:    map[string]any{"currency": "EUR", "paymentId": "ffffffff-ffff-ffff-ffff-ffffffffffff"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
