// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package routing

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestRouteRefundHandler drives RouteRefundImpl through one route_refund workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveRouteRefund to start one as another caller.
func TestRouteRefundHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewRouteRefundProgram(&RouteRefundImpl{}))
	d := DriveRouteRefund(t, h, RouteRefundArgs{
		Channel: RouteRefundChannelCard,
		OrderID: "example",
	})
	d.WantAsks("refund")
	d.Answer(RouteRefundRefundAnswer{Amount: 1.0})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestRouteRefundHandlerMatrix runs the MRTR test matrix against RouteRefundImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestRouteRefundHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &RouteRefundImpl{}
	mrtrtest.RunMatrix(t, NewRouteRefundProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(RouteRefundRefundAnswer{Amount: 1.0}),
		Args:         map[string]any{"channel": "card", "orderId": "example"},
		Invalid:      map[string]mcp.InputResponse{"refund": mrtrtest.Accept(map[string]any{"amount": "not a number"})},
		Other:        "bob",
		OtherArgs:    map[string]any{"channel": "voucher", "orderId": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
