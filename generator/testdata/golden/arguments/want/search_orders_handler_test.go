// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package search

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestSearchOrdersHandler drives SearchOrdersImpl through one search_orders workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveSearchOrders to start one as another caller.
func TestSearchOrdersHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewSearchOrdersProgram(&SearchOrdersImpl{}))
	d := DriveSearchOrders(t, h, SearchOrdersArgs{
		Exact:   true,
		Limit:   20,
		Query:   "example",
		Regions: []SearchOrdersRegions{SearchOrdersRegionsEu},
		Since:   "2026-01-01",
		Sort:    SearchOrdersSortNewest,
		Status:  SearchOrdersStatusOpen,
	})
	d.WantAsks("choice")
	d.Answer(SearchOrdersChoiceAnswer{OrderNumber: 1})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestSearchOrdersHandlerMatrix runs the MRTR test matrix against SearchOrdersImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestSearchOrdersHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &SearchOrdersImpl{}
	mrtrtest.RunMatrix(t, NewSearchOrdersProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(SearchOrdersChoiceAnswer{OrderNumber: 1}),
		Args:         map[string]any{"query": "example", "regions": []any{"eu"}, "status": "open"},
		Invalid:      map[string]mcp.InputResponse{"choice": mrtrtest.Accept(map[string]any{"orderNumber": "not a number"})},
		Other:        "bob",
		OtherArgs:    map[string]any{"query": "another", "regions": []any{"us"}, "status": "paid"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
