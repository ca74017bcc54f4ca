// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package branches

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestApprovePayoutHandler drives ApprovePayoutImpl through one approve_payout workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveApprovePayout to start one as another caller.
func TestApprovePayoutHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewApprovePayoutProgram(&ApprovePayoutImpl{}))
	d := DriveApprovePayout(t, h, ApprovePayoutArgs{Payee: "example"})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestApprovePayoutHandlerMatrix runs the MRTR test matrix against ApprovePayoutImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestApprovePayoutHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &ApprovePayoutImpl{}
	mrtrtest.RunMatrix(t, NewApprovePayoutProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(ApprovePayoutApprovalAnswer{Approver: "example"}),
		Args:         map[string]any{"payee": "example"},
		Invalid:      map[string]mcp.InputResponse{"approval": mrtrtest.Accept(map[string]any{"approver": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"payee": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
