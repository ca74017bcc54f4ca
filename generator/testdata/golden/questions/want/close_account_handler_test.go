// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package closing

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestCloseAccountHandler drives CloseAccountImpl through one close_account workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveCloseAccount to start one as another caller.
func TestCloseAccountHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewCloseAccountProgram(&CloseAccountImpl{}))
	d := DriveCloseAccount(t, h, CloseAccountArgs{AccountID: "example"})
	d.WantAsks("reason")
	d.Answer(CloseAccountReasonAnswer{Text: "example"})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestCloseAccountHandlerMatrix runs the MRTR test matrix against CloseAccountImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestCloseAccountHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &CloseAccountImpl{}
	mrtrtest.RunMatrix(t, NewCloseAccountProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			CloseAccountReasonAnswer{Text: "example"},
			CloseAccountRefundAnswer{Refund: true},
		),
		Args: map[string]any{"accountId": "example"},
		Invalid: map[string]mcp.InputResponse{
			"reason": mrtrtest.Accept(map[string]any{"text": 12345}),
			"refund": mrtrtest.Accept(map[string]any{"refund": "not a number"}),
		},
		Other:        "bob",
		OtherArgs:    map[string]any{"accountId": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
